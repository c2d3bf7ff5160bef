;;; A key/value server built on the generic server behaviour (Termite paper §5.2)
;;;
;;; The generic server does all the message passing; a *plugin* supplies four
;;; sequential callbacks: init (the initial state), call (synchronous requests,
;;; answered with (reply value state), (noreply state) or (stop reason state)),
;;; cast (asynchronous requests) and terminate.

;;; A dictionary as an association list behind a header pair, so that dict-set!
;;; can update it in place. The dictionary never leaves the server process, so
;;; the mutation is invisible to every other process.
(define (make-dict) (list '*dict*))
(define (dict-ref dict key)
  (let ((entry (assoc key (cdr dict))))
    (if entry (cdr entry) #f)))
(define (dict-set! dict key val)
  (let ((entry (assoc key (cdr dict))))
    (if entry
        (set-cdr! entry val)
        (set-cdr! dict (cons (cons key val) (cdr dict))))))

;;; The plugin, as in the paper (println where the paper's print ends a line).
(define key/value-generic-server-plugin
  (make-generic-server-plugin
   (lambda ()                                  ; INIT
     (println "Key-Value server starting")
     (make-dict))
   (lambda (term from state)                   ; CALL
     (match term
       (('store key val)
        (dict-set! state key val)
        (list 'reply 'ok state))
       (('lookup key)
        (list 'reply (dict-ref state key) state))))
   (lambda (term state)                        ; CAST
     (match term
       ('stop (list 'stop 'normal state))))
   (lambda (reason state)                      ; TERMINATE
     (println "Key-Value server terminating"))))

;;; The server's interface: callers never see a message.
(define (kv:start)
  (generic-server-start-link
   key/value-generic-server-plugin))
(define (kv:stop server)
  (generic-server-cast server 'stop))
(define (kv:store server key val)
  (generic-server-call server (list 'store key val)))
(define (kv:lookup server key)
  (generic-server-call server (list 'lookup key)))

(define kv (kv:start))
(println (kv:store kv 'apple 3))       ; ⇒ ok
(println (kv:store kv 'pear 5))        ; ⇒ ok
(println (kv:lookup kv 'apple))        ; ⇒ 3
(kv:store kv 'apple 4)
(println (kv:lookup kv 'apple))        ; ⇒ 4
(println (kv:lookup kv 'banana))       ; ⇒ #f

;; Stopping is a cast: it returns at once. The server stops with reason normal,
;; which does not propagate through the link. Wait until it is gone, so that its
;; goodbye is printed before this program (the node's main process) returns.
(kv:stop kv)
(let wait ()
  (if (process-alive? kv)
      (begin (sleep 0.01) (wait))))
(println "stopped")
