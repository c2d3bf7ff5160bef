;; included with include-ci by 4.1-primitive-expressions.scm: identifiers fold to lower case
(define INCLUDED-CI-VALUE 'HELLO)
(define (Included-CI-Proc) #\A)
