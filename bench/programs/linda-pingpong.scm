;; The S/Net PING/PONG: two processes alternate out("ping")/in("ping") and
;; out("pong")/in("pong") through the tuple space; out/in pairs per second.
(define n (string->number (or (get-environment-variable "ROUNDS") "200000")))
(define (ponger k)
  (let loop ((i 0))
    (if (< i k)
        (begin (in 'ping) (out 'pong) (loop (+ i 1))))))
(define (pinger k)
  (let loop ((i 0))
    (if (< i k)
        (begin (out 'ping) (in 'pong) (loop (+ i 1))))))
(spawn (lambda () (ponger (+ n 5000))))
(pinger 5000)
(define t0 (current-jiffy))
(pinger n)
;; each round trip is two out/in pairs
(display (/ (* 2 n) (/ (- (current-jiffy) t0) (exact->inexact (jiffies-per-second)))))
(newline)
