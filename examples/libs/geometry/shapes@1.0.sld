;; Version 1.0 of a small library, published by a daemon started with
;; `--lib examples/libs`. Shapes are lists: (square side), (rect w h), (circle r).
(define-library (geometry shapes@1.0)
  (export area describe serve)
  (import (scheme base) (termite))
  (begin
    (define (area s)
      (case (car s)
        ((square) (* (cadr s) (cadr s)))
        ((rect) (* (cadr s) (list-ref s 2)))
        ((circle) (* 3 (cadr s) (cadr s)))   ; 1.0 rounds pi to 3
        (else (error "unknown shape" s))))
    (define (describe s) (list (car s) 'area (area s) 'by "shapes 1.0"))
    ;; a service: answers (from tag shape) with its description; a message
    ;; (upgrade k) makes it go on as (k served), the procedure it was sent
    (define (serve served)
      (recv
        ((from tag ('describe s)) (! from (list tag (describe s))) (serve (+ served 1)))
        (('upgrade k) (k served))))))
