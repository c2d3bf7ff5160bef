;;; Asynchronous tuple-space operations (L²imbo, Davies et al., 1998)
;;;
;;; in and rd block the calling process. L²imbo's asynchronous versions start
;;; the operation and return at once with a handle; the process goes on working,
;;; polls the handle when it likes, and collects the tuple when it needs it.
;;;   (in-async field ...)   (rd-async field ...)   start; return a handle
;;;   (async-poll handle)                           #t once the tuple is there
;;;   (async-collect handle [timeout [default]])    the tuple (blocks if needed)

;; Ask for a result nobody has produced yet.
(define h (in-async "result" ?symbol ?integer))
(display (list 'ready? (async-poll h)))            ; ⇒ (ready? #f)
(newline)

;; Meanwhile, a producer will out it after some work.
(spawn (lambda ()
         (sleep 0.05)
         (out "result" 'answer 42)))

;; Keep busy until it has arrived, counting the rounds of other work.
(define rounds
  (let loop ((n 0))
    (if (async-poll h)
        n
        (begin (sleep 0.01) (loop (+ n 1))))))
(display (list 'ready-after-some-work? (> rounds 0)))   ; ⇒ #t
(newline)
(display (async-collect h))                        ; ⇒ (result answer 42)
(newline)
(display (inp "result" ?any ?any))                 ; ⇒ #f: in-async removed it
(newline)

;; Several operations in flight at once, collected in any order.
(define hs (map (lambda (i) (rd-async "item" i ?string)) '(1 2 3)))
(out "item" 3 "three")
(out "item" 1 "one")
(out "item" 2 "two")
(display (map async-collect hs))                   ; ⇒ ((item 1 one) (item 2 two) (item 3 three))
(newline)

;; async-collect takes a timeout and a default, like in-timeout.
(display (async-collect (in-async "never") 0.05 'gave-up))   ; ⇒ gave-up
(newline)
