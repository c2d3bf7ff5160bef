// @ts-check
/**
 * The Termite library written in Scheme (paper §4–§5): selective receive, `??`, `!?`,
 * supervisors, the generic server, Linda's eval and the asynchronous (L²imbo/Bonita)
 * operations. Compiled at start-up into the runtime namespace, like the prelude, so
 * every continuation captured in a server loop or a supervisor is data and can migrate.
 */
export const termiteSource = String.raw`
;;; ------------------------------------------------------------ selective receive
;; Scan the mailbox from the oldest message; a message nobody wants stays where it is.
;; (%mbox-wait cursor deadline) blocks until a message with seq >= cursor arrives (#t)
;; or the deadline passes (#f).
(define (%scan accept deadline on-timeout)
  (let loop ((cursor 0))
    (let ((m (%mbox-peek cursor)))
      (if m
          (let ((r (accept (vector-ref m 1))))
            (if r
                (begin (%mbox-take (vector-ref m 0)) r)
                (loop (+ (vector-ref m 0) 1))))
          (if (%mbox-wait cursor deadline)
              (loop cursor)
              (on-timeout))))))

;; recv: the expander passes a matcher returning #f or the clause's body as a thunk.
(define (%recv matcher timeout after)
  (%scan matcher (%deadline timeout)
         (lambda () (if after after (lambda () (raise 'timeout))))))

(define (?? pred . opts)
  (let ((timeout (if (pair? opts) (car opts) #f))
        (has-default (and (pair? opts) (pair? (cdr opts)))))
    (let ((box
           (%scan (lambda (m) (if (pred m) (list m) #f))
                  (%deadline timeout)
                  (lambda () (if has-default (list (cadr opts)) (raise 'timeout))))))
      (car box))))

;; (!? pid msg [timeout [default]]): send (self tag msg), wait for (tag reply).
(define (!? pid msg . opts)
  (let ((tag (make-tag))
        (timeout (if (pair? opts) (car opts) #f))
        (has-default (and (pair? opts) (pair? (cdr opts)))))
    (! pid (list (self) tag msg))
    (let ((box
           (%scan (lambda (m)
                    (if (and (pair? m) (equal? (car m) tag) (pair? (cdr m))) (cdr m) #f))
                  (%deadline timeout)
                  (lambda () (if has-default (list (cadr opts)) (raise 'timeout))))))
      (car box))))

;;; ------------------------------------------------------------ supervisors (paper 5.3)
;; (spawn-thunk-supervised thunk [max-restarts [period-seconds [shutdown-seconds]]])
;; The supervisor's pid stands for the worker: every message but 'shutdown is
;; forwarded. A failed worker is restarted unless it failed more than max-restarts
;; times within period-seconds. 'shutdown asks the worker to stop
;; ((supervisor tag shutdown) → (tag ok)) and terminates it if it does not within
;; shutdown-seconds. Info lines go to the node's log, not to the program's output.
(define (spawn-thunk-supervised thunk . opts)
  (let ((max-restarts (if (pair? opts) (car opts) 5))
        (period (if (and (pair? opts) (pair? (cdr opts))) (cadr opts) 5))
        (shutdown-after (if (and (pair? opts) (pair? (cdr opts)) (pair? (cddr opts))) (caddr opts) 1)))
    (spawn (lambda () (%supervise thunk max-restarts period shutdown-after)))))

(define (%supervise thunk max-restarts period shutdown-after)
  (define (start)
    (%log "(info: starting up supervised process)")
    (spawn-link thunk))
  (define (recent times now)
    (cond ((null? times) '())
          ((< (- now (car times)) period) (cons (car times) (recent (cdr times) now)))
          (else '())))
  (let loop ((worker (start)) (failures '()))
    (let ((event (catch (lambda (e) (list '%failed e))
                   (let ((m (?)))
                     (if (eq? m 'shutdown) '%shutdown (begin (! worker m) '%forwarded))))))
      (cond ((eq? event '%forwarded) (loop worker failures))
            ((eq? event '%shutdown) (%supervisor-shutdown worker shutdown-after))
            (else
             (%log "(info: process failed)")
             (let* ((now (current-second))
                    (failures (cons now (recent failures now))))
               (if (> (length failures) max-restarts)
                   (%log "(info: too many failures, halting supervisor)")
                   (begin
                     (%log "(info: restarting...)")
                     (loop (start) failures)))))))))

(define (%supervisor-shutdown worker shutdown-after)
  (unlink worker)
  (let ((tag (make-tag)))
    (! worker (list (self) tag 'shutdown))
    (let ((answer (catch (lambda (e) 'no-answer)
                    (?? (lambda (m) (and (pair? m) (equal? (car m) tag))) shutdown-after 'no-answer))))
      (if (eq? answer 'no-answer)
          (begin
            (terminate! worker)
            (%log "(info: had to terminate the process)"))
          (%log "(info: the process shut down)"))
      (%log "(info: halting supervisor)"))))

;;; ------------------------------------------------------------ generic server (paper 5.2)
;; A plugin: init, call, cast and terminate callbacks. call returns (reply value state),
;; (noreply state) or (stop reason state); cast returns (noreply state) or
;; (stop reason state). A stop with reason normal ends the server normally; any other
;; reason is raised (and reaches the linked starter).
(define-record-type generic-server-plugin
  (make-generic-server-plugin init call cast terminate)
  generic-server-plugin?
  (init %plugin-init) (call %plugin-call) (cast %plugin-cast) (terminate %plugin-terminate))

(define (generic-server-start-link plugin . args)
  (spawn-link (lambda () (%generic-server-loop plugin (apply (%plugin-init plugin) args)))))

(define (generic-server-start plugin . args)
  (spawn (lambda () (%generic-server-loop plugin (apply (%plugin-init plugin) args)))))

(define (generic-server-call server term . opts)
  (apply !? server (list '%call term) opts))

(define (generic-server-cast server term)
  (! server (list '%cast term)))

(define (%generic-server-stop plugin reason state)
  ((%plugin-terminate plugin) reason state)
  (if (not (eq? reason 'normal)) (raise reason)))

;; The kind of a callback's result — reply, noreply or stop — if it is well formed
;; ((reply v s), (noreply s), (stop r s)), else #f (so a bad result gets the
;; generic server's error, not a car of a non-pair).
(define (%gs-result-kind result)
  (and (pair? result) (list? result)
       (case (car result)
         ((reply stop) (and (= (length result) 3) (car result)))
         ((noreply) (and (= (length result) 2) 'noreply))
         (else #f))))

(define (%generic-server-loop plugin state)
  (let ((m (?)))
    (cond
     ((and (pair? m) (pair? (cdr m)) (pair? (cddr m))
           (pair? (caddr m)) (eq? (car (caddr m)) '%call))
      (let* ((from (car m)) (tag (cadr m))
             (result ((%plugin-call plugin) (cadr (caddr m)) from state)))
        (case (%gs-result-kind result)
          ((reply) (! from (list tag (cadr result))) (%generic-server-loop plugin (caddr result)))
          ((noreply) (%generic-server-loop plugin (cadr result)))
          ((stop) (%generic-server-stop plugin (cadr result) (caddr result)))
          (else (error "generic server: a call callback must return (reply v s), (noreply s) or (stop r s)" result)))))
     ((and (pair? m) (eq? (car m) '%cast) (pair? (cdr m)))
      (let ((result ((%plugin-cast plugin) (cadr m) state)))
        (case (%gs-result-kind result)
          ((noreply) (%generic-server-loop plugin (cadr result)))
          ((stop) (%generic-server-stop plugin (cadr result) (caddr result)))
          (else (error "generic server: a cast callback must return (noreply s) or (stop r s)" result)))))
     (else (%generic-server-loop plugin state)))))

;;; ------------------------------------------------------------ Linda's eval and asynchronous operations
;; (spawn-tuple field ...): a process computes the fields — each procedure among them
;; is called with no arguments — and outs the tuple (Linda's eval).
(define (spawn-tuple . fields)
  (spawn (lambda ()
           (apply out (map (lambda (f) (if (procedure? f) (f) f)) fields)))))

;; L2imbo's asynchronous operations: start an in/rd, poll it, collect its tuple.
;; A handle is #(async tag done? tuple); a helper process does the blocking operation
;; and sends the tuple back tagged.
(define (%async op fields)
  (let ((me (self)) (tag (make-tag)))
    (spawn (lambda () (! me (list '%async tag (apply op fields)))))
    (vector '%async tag #f #f)))
(define (in-async . fields) (%async in fields))
(define (rd-async . fields) (%async rd fields))

(define (%async-match h)
  (lambda (m) (if (and (pair? m) (eq? (car m) '%async) (equal? (cadr m) (vector-ref h 1))) (list (caddr m)) #f)))

(define (async-poll h)
  (or (vector-ref h 2)
      (let ((r (%scan (%async-match h) (%deadline 0) (lambda () #f))))
        (if r (begin (vector-set! h 2 #t) (vector-set! h 3 (car r)) #t) #f))))

(define (async-collect h . opts)
  (if (async-poll h)
      (vector-ref h 3)
      (let ((r (%scan (%async-match h) (%deadline (if (pair? opts) (car opts) #f))
                      (lambda () (if (and (pair? opts) (pair? (cdr opts))) (list (cadr opts)) (raise 'timeout))))))
        (vector-set! h 2 #t)
        (vector-set! h 3 (car r))
        (car r))))
`;
