;;; A supervised pong server (Termite paper §5.3)
;;;
;;; spawn-thunk-supervised starts a supervisor that runs the thunk in a worker
;;; process linked to it, and restarts the worker when it dies of an uncaught
;;; exception. The pid it returns is the supervisor's; every message sent to it
;;; is forwarded to the current worker, so clients never notice a restart.
;;; The message 'shutdown asks the worker to stop, and terminates it if it does
;;; not cooperate. Optional arguments: the number of restarts tolerated within a
;;; period (default 5 within 5 seconds), and how long to wait on shutdown (1 s).
;;;
;;; The supervisor's info lines go to the node's log (stderr, prefixed
;;; "termite: "), not to the program's output:
;;;   (info: starting up supervised process)
;;;   (info: process failed)
;;;   (info: restarting...)
;;;   (info: starting up supervised process)
;;;   (info: had to terminate the process)
;;;   (info: halting supervisor)

(define (start-pong-server)
  (let loop ()
    (recv
     ((from tag 'crash)
      (! from (list tag (/ 1 0))))     ; an uncaught exception: the worker dies
     ((from tag 'ping)
      (! from (list tag 'pong))))
    (loop)))

(define robust-pong-server
  (spawn-thunk-supervised start-pong-server))

(define (ping server)
  (!? server 'ping 1 'timeout))
(define (crash server)
  (!? server 'crash 1 'crashed))       ; no answer comes: the default after 1 s
(define (kill server)
  (! server 'shutdown))

(println (ping robust-pong-server))    ; ⇒ pong
(println (crash robust-pong-server))   ; ⇒ crashed
(println (ping robust-pong-server))    ; ⇒ pong, from the restarted worker
(kill robust-pong-server)

;; Wait for the supervisor to finish its shutdown (so that its last info lines
;; reach the log before the program ends).
(let wait ()
  (if (process-alive? robust-pong-server)
      (begin (sleep 0.05) (wait))))
