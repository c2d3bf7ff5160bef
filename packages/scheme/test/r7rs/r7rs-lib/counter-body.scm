(define counter-base 100)
(define counter counter-base)
(define (next!) (set! counter (+ counter 1)) counter)
(define (current-count) counter)
