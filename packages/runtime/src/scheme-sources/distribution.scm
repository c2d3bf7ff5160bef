;;; The Scheme part of distribution (../prims-distribution.js has the primitives):
;;; `on` runs a thunk on a node and returns its value (or raises its error), and an
;;; operation on a tuple space held by another node runs there (%remote-linda).

;; The remote process is linked to the caller while it runs, so a failure of its node is
;; an exit signal raised in the caller's receive, not a wait for ever; the link is
;; removed once the answer is in (a later failure of that node is no business of ours).
(define (%call-on node thunk)
  (let* ((me (self))
         (tag (make-tag))
         (pid (remote-spawn-link node
                (lambda ()
                  (! me (list tag (guard (e (#t (list 'error e))) (list 'ok (thunk)))))))))
    (let ((answer (recv ((,tag answer) answer))))
      (unlink pid)
      (if (eq? (car answer) 'ok) (cadr answer) (raise (cadr answer))))))

(define (on node thunk) (%call-on node thunk))

;; Centralised spaces: an operation on a space held by another node runs there, in a
;; process of its own, and the answer comes back as a message (so a blocking in waits
;; like any receive, and a failure of that node is an exit signal, not a hang).
(define (%remote-linda op space args)
  (let ((proc (%linda-procedure op)))
    (%call-on (space-node space) (lambda () (apply proc args)))))

(define (%linda-procedure op)
  (case op
    ((out) out) ((in) in) ((rd) rd) ((inp) inp) ((rdp) rdp)
    ((in-timeout) in-timeout) ((rd-timeout) rd-timeout) ((tuple-count) tuple-count)
    (else (error "unknown tuple operation" op))))

(define (remote-space name node) (%space-ref (%node-id node) name))
