;;; The Termite library written in Scheme (the Termite paper §4–§5): selective receive,
;;; `??`, `!?`, supervisors, the generic server, Linda's eval and the asynchronous
;;; (L²imbo/Bonita) operations. Compiled at start-up into the runtime namespace 'rt',
;;; like the language's prelude, so every continuation captured in a server loop or a
;;; supervisor is data and can migrate. Loaded by loadTermiteLibrary (../index.js) after
;;; the runtime's primitives are registered: it calls them (%mbox-peek, %mbox-take, ...).

;;; ------------------------------------------------------------ selective receive
;; Scan the mailbox from the oldest message; a message nobody wants stays where it is.
;; (%mbox-wait cursor deadline) blocks until a message with seq >= cursor arrives (#t)
;; or the deadline passes (#f); it answers `rescan` in a process a drain moved while it
;; waited (its mailbox's sequence numbers are the new node's): look again from the oldest.
(define (%scan accept deadline on-timeout)
  (let loop ((cursor 0))
    (let ((m (%mbox-peek cursor)))
      (if m
          (let ((r (accept (vector-ref m 1))))
            (if r
                (begin (%mbox-take (vector-ref m 0)) r)
                (loop (+ (vector-ref m 0) 1))))
          (let ((woke (%mbox-wait cursor deadline)))
            (cond ((eq? woke #t) (loop cursor))
                  (woke (loop 0))
                  (else (on-timeout))))))))

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
;; The target is monitored while we wait (../termite-node/monitors.js): if it ends,
;; is not alive, or its node goes, the wait ends — with the default if there is one (no
;; answer can come), else with an error saying why; a notice that arrived with the
;; reply is taken out of the mailbox.
(define (!? pid msg . opts)
  (let ((tag (%monitor pid (make-tag)))
        (timeout (if (pair? opts) (car opts) #f))
        (has-default (and (pair? opts) (pair? (cdr opts)))))
    (! pid (list (self) tag msg))
    (let ((box
           (%scan (lambda (m)
                    (and (pair? m)
                         (if (equal? (car m) tag)
                             (and (pair? (cdr m)) (cdr m))
                             (and (%down-for? m tag) (vector (caddr m))))))
                  (%deadline timeout)
                  (lambda () (if has-default (list (cadr opts)) (begin (%demonitor tag) (raise 'timeout)))))))
      (if (%demonitor tag) (%scan (lambda (m) (%down-for? m tag)) 0 (lambda () #f)))
      (cond ((not (vector? box)) (car box))
            (has-default (cadr opts))
            (else (raise (%down-error '!? pid (vector-ref box 0))))))))

(define (%down-for? m tag)
  (and (eq? (car m) '%down) (pair? (cdr m)) (equal? (cadr m) tag)))

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

;; L2imbo's asynchronous operations (after Bonita): (in-async field ...) and
;; (rd-async field ...) start an in or rd and return a handle at once;
;; (async-poll h) says whether its tuple has arrived; (async-collect h [timeout
;; [default]]) returns it, waiting if needed; (async-cancel h) abandons it.
;;
;; A handle is #(%async owner tag state tuple wait fields remove?), used only by the
;; process that started the operation (owner). No process waits for it: on a space of
;; this node the operation is a record of the core (wait is its number, %async-wait);
;; the out that serves it, in one order with the waiting processes, sends (%async tag
;; tuple) to the owner. On another node's space it is a pending request of this node
;; (wait is its number, negated), which the holder keeps as a record and answers with
;; the same message, or (%async tag #f error) if it fails (the holder gone); on a
;; distributed space, a record beside this node's replica. If the owner has ended when
;; the tuple comes, an in's tuple goes back. state: waiting, done (the tuple is in the
;; handle), failed (the error is), collected, or cancelled. Starting first tries
;; inp/rdp, so a tuple already there completes the operation at once and a malformed
;; template raises in the caller. Stopping the wait (a timeout in async-collect, or
;; async-cancel) never loses a tuple an in had already removed: its message is in the
;; owner's mailbox, looked for once more, and async-cancel puts it back into the space.
;; A timed-out async-collect makes a last inp/rdp of its own once the wait is gone.
(define (%async remove? fields)
  (let ((found (apply (if remove? inp rdp) fields))
        (me (self)))
    (if found
        (vector '%async me #f 'done found #f fields remove?)
        (let ((tag (make-tag)))
          (vector '%async me tag 'waiting #f (%async-wait remove? tag fields) fields remove?)))))
(define (in-async . fields) (%async #t fields))
(define (rd-async . fields) (%async #f fields))

(define (%async-check h who)
  (if (not (and (vector? h) (= (vector-length h) 8) (eq? (vector-ref h 0) '%async)))
      (error (string-append who ": expected a handle from in-async or rd-async") h))
  (if (not (equal? (vector-ref h 1) (self)))
      (error (string-append who ": this handle belongs to the process that started the operation") h)))

;; Wait up to timeout seconds (#f: for ever, 0: just look) for the operation's answer.
(define (%async-arrived! h timeout)
  (let* ((tag (vector-ref h 2))
         (r (%scan (lambda (m) (if (and (pair? m) (eq? (car m) '%async) (pair? (cdr m)) (equal? (cadr m) tag)) (cddr m) #f))
                   (%deadline timeout)
                   (lambda () #f))))
    (and r (begin (if (pair? (cdr r))
                      (begin (vector-set! h 3 'failed) (vector-set! h 4 (cadr r)))
                      (begin (vector-set! h 3 'done) (vector-set! h 4 (car r))))
                  #t))))

;; Stop the wait. #t if the operation completed anyway (the tuple is in the handle).
(define (%async-stop! h)
  (%async-abandon (vector-ref h 5))
  (cond ((%async-arrived! h 0) #t)
        (else (vector-set! h 3 'cancelled) #f)))

;; After a timeout: stop the wait, then one last look of our own.
(define (%async-give-up! h)
  (or (%async-stop! h)
      (let ((found (apply (if (vector-ref h 7) inp rdp) (vector-ref h 6))))
        (and found (begin (vector-set! h 3 'done) (vector-set! h 4 found) #t)))))

(define (async-poll h)
  (%async-check h "async-poll")
  (case (vector-ref h 3)
    ((done collected failed) #t)
    ((waiting) (%async-arrived! h 0))
    (else #f)))

(define (async-collect h . opts)
  (%async-check h "async-collect")
  (let ((timeout (if (pair? opts) (car opts) #f)))
    (if (eq? (vector-ref h 3) 'waiting)
        (or (%async-arrived! h timeout) (%async-give-up! h)))
    (case (vector-ref h 3)
      ((done collected) (vector-set! h 3 'collected) (vector-ref h 4))
      ((failed) (raise (vector-ref h 4)))
      (else (if (and (pair? opts) (pair? (cdr opts)))
                (cadr opts)
                (raise 'timeout))))))

;; Abandon the operation. An in's tuple that was taken but not collected goes back
;; into the space. #t if the operation was still outstanding, #f if it had completed.
(define (async-cancel h)
  (%async-check h "async-cancel")
  (let ((state (vector-ref h 3)))
    (cond ((eq? state 'waiting)
           (if (%async-stop! h) (async-cancel h) (begin (vector-set! h 3 'cancelled) #t)))
          ((eq? state 'done)
           (if (vector-ref h 7)
               (let ((fields (vector-ref h 6)) (tuple (vector-ref h 4)))
                 (apply out (if (and (pair? fields) (space? (car fields))) (cons (car fields) tuple) tuple))))
           (vector-set! h 3 'cancelled)
           #f)
          (else #f))))
