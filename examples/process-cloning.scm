;;; Process cloning with continuations (Termite paper §4.10)
;;;
;;; A continuation is a process frozen at some point. A process that answers
;;; 'clone with a thunk calling its own current continuation lets any other
;;; process *become* a copy of it: same code, same state, same place in its loop.

;; A counter process: its state is n. It answers 'get, counts 'inc, and on
;; 'clone sends back a thunk that resumes this very process at this point.
(define (counter n)
  (let loop ((n n))
    (recv
     (('inc) (loop (+ n 1)))
     ((from tag 'get) (! from (list tag n)) (loop n))
     ((from tag 'clone)
      (call/cc
       (lambda (clone)
         (! from (list tag (lambda () (clone #t))))))
      (loop n)))))

(define original (spawn (lambda () (counter 0))))
(! original '(inc))
(! original '(inc))
(display (!? original 'get))             ; ⇒ 2
(newline)

;; Spawning the thunk starts a new process that continues from the call/cc:
;; it returns #t there and goes on with (loop n), with n = 2.
(define clone (spawn (!? original 'clone)))
(display (!? clone 'get))                ; ⇒ 2   the state came along
(newline)

;; From now on the two are independent processes.
(! clone '(inc))
(! clone '(inc))
(! clone '(inc))
(display (list (!? original 'get) (!? clone 'get)))   ; ⇒ (2 5)
(newline)
(display (equal? original clone))        ; ⇒ #f   different processes
(newline)
