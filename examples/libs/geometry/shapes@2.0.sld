;; Version 2.0: a better pi, and the service counts what it served across the update.
(define-library (geometry shapes@2.0)
  (export area describe serve)
  (import (scheme base) (scheme inexact) (termite))
  (begin
    (define (area s)
      (case (car s)
        ((square) (* (cadr s) (cadr s)))
        ((rect) (* (cadr s) (list-ref s 2)))
        ((circle) (/ (round (* 100 (* (acos -1) (cadr s) (cadr s)))) 100))
        (else (error "unknown shape" s))))
    (define (describe s) (list (car s) 'area (area s) 'by "shapes 2.0"))
    (define (serve served)
      (recv
        ((from tag ('describe s)) (! from (list tag (list (describe s) 'served served))) (serve (+ served 1)))
        (('upgrade k) (k served))))))
