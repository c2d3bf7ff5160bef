;; The ring benchmark (BENCHMARKS.md): N processes — the driver plus N-1 relays. The
;; driver injects SEED; a process receiving V > 0 sends V-1 to its successor; the one
;; receiving 0 relays it and stops, so the ring is destroyed. Wall time from the first
;; spawn to the last exit (the driver, which receives the 0 last).
(define n (string->number (or (get-environment-variable "RING_N") "250000")))
(define seed (string->number (or (get-environment-variable "SEED") "0")))
(define (relay next)
  (lambda ()
    (let loop ()
      (let ((v (?)))
        (if (> v 0)
            (begin (! next (- v 1)) (loop))
            (! next 0))))))
(define t0 (current-jiffy))
(define first
  (let loop ((i 1) (next (self)))
    (if (= i n) next (loop (+ i 1) (spawn (relay next))))))
(! first seed)
(let loop ()
  (let ((v (?)))
    (if (> v 0) (begin (! first (- v 1)) (loop)))))
(display (/ (- (current-jiffy) t0) (exact->inexact (jiffies-per-second))))
(newline)
