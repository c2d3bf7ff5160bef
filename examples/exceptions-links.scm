;;; Exceptions and links (Termite paper §3.3 and §4.7)
;;;
;;; catch and handle both install a handler for the exceptions raised by their
;;; body. After the handler runs, catch continues where the handler was
;;; installed (the value of the catch form is the handler's value), while handle
;;; continues where the exception was raised (raise returns the handler's value).

(display
 (catch
  (lambda (exception) exception)
  (raise 42)                       ; this will not return
  123))                            ; ⇒ 42
(newline)

(display
 (handle
  (lambda (exception) exception)
  (raise 42)                       ; control will resume here
  123))                            ; ⇒ 123
(newline)

;; An uncaught exception ends the process that raised it. Without a link nobody
;; hears about it: the parent's receive just times out.
(display
 (catch
  (lambda (exception) #t)
  (spawn (lambda () (raise 'error)))
  (? 0.2 'ok)))                    ; ⇒ ok
(newline)

;; spawn-link links the two processes in both directions: the child's uncaught
;; exception is raised in the parent at its next receive (here, the ?).
(display
 (catch
  (lambda (exception) #t)
  (spawn-link (lambda () (raise 'error)))
  (? 1 'ok)))                      ; ⇒ #t
(newline)

;; The exception raised is the one the linked process died of, so the parent
;; can tell what happened.
(display
 (catch
  (lambda (exception) (list 'linked-process-died-of exception))
  (spawn-link (lambda () (raise 'disk-full)))
  (?)))                            ; ⇒ (linked-process-died-of disk-full)
(newline)

;; A normal exit (the thunk returns) does not propagate.
(display
 (catch
  (lambda (exception) 'raised)
  (spawn-link (lambda () 'finished-normally))
  (? 0.2 'nothing-happened)))      ; ⇒ nothing-happened
(newline)

;; Links are directed. (outbound-link pid) sends *my* uncaught exceptions to
;; pid; (inbound-link pid) makes pid send *its* uncaught exceptions to me.
;; (spawn-link and full-link make both; unlink removes both.)
(define me (self))
(define worker
  (spawn (lambda ()
           (recv ('go (raise 'worker-failed))))))

;; A bystander links *outbound* to the worker: if the bystander died, the worker
;; would hear of it; the worker's death does not reach the bystander.
(define bystander
  (spawn (lambda ()
           (outbound-link worker)
           (! me 'linked)
           (recv ((from tag 'how-are-you) (! from (list tag 'unaffected)))))))
(recv ('linked #t))

;; The main process, acting as a monitor, links *inbound* from the worker.
(inbound-link worker)
(! worker 'go)
(display (catch (lambda (e) (list 'monitor-saw e)) (?)))  ; ⇒ (monitor-saw worker-failed)
(newline)
(display (!? bystander 'how-are-you 1 'bystander-died))  ; ⇒ unaffected
(newline)
