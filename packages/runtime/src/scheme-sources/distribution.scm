;;; The Scheme part of distribution (../prims-distribution.js has the primitives):
;;; `on` runs a thunk on a node and returns its value (or raises its error), and an
;;; a space reference names its home node, name and kind (make-space, remote-space).

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

;; Tuple spaces (docs/linda.md, "Kinds of space"): (make-space name) is a local space of
;; this node; (make-space name 'central) a central one, reachable from every node and
;; durable on a daemon with --data; (make-space name 'central node) makes it on node, or
;; returns the one of that name already there. An operation on a space held by another
;; node runs there (linda/remote-spaces.js), the calling process waiting for its answer.
(define (make-space name . opts)
  (cond ((null? opts) (%make-space name 'local))
        ((null? (cdr opts)) (%make-space name (car opts)))
        ((null? (cddr opts)) (%make-space-on (%node-id (cadr opts)) name (car opts)))
        (else (error "make-space: expected (make-space name [kind [node]])" opts))))

(define (remote-space name node) (%space-ref (%node-id node) name))

;; (space-count space field-or-formal ...): how many tuples of the space match.
(define (space-count space . template)
  (if (not (space? space)) (error "space-count: expected a space" space))
  (apply tuple-count space template))

;; (space-bridge from to field-or-formal ...): a bridging agent (L2imbo) — a process that
;; moves every tuple of `from` matching the template into `to`, for ever, as they come
;; (each an in on from, then an out on to: a tuple is in one space or the other, or in
;; the agent between the two). Returns the agent's pid; (terminate! pid) stops it.
(define (space-bridge from to . template)
  (if (not (and (space? from) (space? to))) (error "space-bridge: expected two spaces" from to))
  (if (null? template) (error "space-bridge: a template needs at least one field"))
  (if (equal? from to) (error "space-bridge: the two spaces are the same space" from))
  (spawn (lambda ()
           (let loop ()
             (apply out to (apply in from template))
             (loop)))))

;; (with-qos priority seconds thunk): L2imbo's QoS (linda/qos.js) — thunk runs with the
;; process at that priority (0 first ... 3 last) and a deadline seconds from now (#f:
;; none), both given to the core's scheduler (earliest deadline first within a priority);
;; a blocking Linda operation still waiting at the deadline raises an error of kind
;; deadline. The priority and deadline before it are back once thunk returns or escapes.
(define (with-qos priority seconds thunk)
  (let ((saved #f))
    (dynamic-wind
      (lambda () (set! saved (%set-qos priority seconds)))
      thunk
      (lambda () (%restore-qos saved)))))
