;;; Linda's eval: live tuples (Gelernter, "Generative communication in Linda", 1985)
;;;
;;; eval(t) is out(t) for a tuple whose fields are still being computed: a new
;;; process computes them, and the finished tuple appears in the tuple space.
;;; Here it is called spawn-tuple (eval is R7RS's). Every field that is a
;;; procedure is called with no arguments by the new process; the other fields
;;; are taken as they are. Whoever wants the result just ins or rds the tuple,
;;; blocking until it exists.

(define (fib n)
  (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))

;; One live tuple per argument; the computations run as concurrent processes.
(for-each (lambda (n)
            (spawn-tuple "fib" n (lambda () (fib n))))
          '(5 10 15 20 25))

;; Collect them in the order we choose (the 25 one is the slowest to appear).
(for-each (lambda (n)
            (let ((t (in "fib" n ?integer)))
              (display t)
              (newline)))
          '(25 20 15 10 5))

;; Fields can be computed values of any type, and the name is ordinary data too:
;; a live tuple can carry its own label.
(define (isqrt n)
  (call-with-values (lambda () (exact-integer-sqrt n)) (lambda (s r) s)))
(spawn-tuple 'square-roots (lambda () (map isqrt '(4 9 16))))
(display (in 'square-roots ?list))      ; ⇒ (square-roots (2 3 4))
(newline)

;; spawn-tuple returns the pid of the computing process, like spawn.
(display (pid? (spawn-tuple "done" (lambda () #t))))
(newline)
(display (in "done" ?boolean))          ; ⇒ (done #t)
(newline)
