;; included by 4.1-primitive-expressions.scm (R7RS 4.1.7)
(define included-value 42)
(define (included-double x) (* 2 x))
