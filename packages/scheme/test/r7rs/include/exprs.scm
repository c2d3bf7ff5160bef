;; included inside a body: a definition and an expression
(define inner 10)
(+ inner 1)
