;;; The (termite messengers) library: MESSENGERS (Fukuda, Bic, Dillencourt 1996) on
;;; Termite processes — docs/messengers.md. A messenger is a process started by
;;; `inject`; its messenger variables are its own state (its continuation), its network
;;; variables and the logical network live in a table per physical node
;;; (../messengers/logical-network.js, reached through the %-primitives of
;;; ../messengers/prims-messengers.js). A hop to a node of the same physical node is a
;;; table update; to another physical node it is `migrate`; a hop with several
;;; destinations sends copies, each a process resuming the hop's continuation there.
;;;
;;; Invariants:
;;;  - a messenger's record (%me) is #(procedure controller tag credit done time): the
;;;    procedure it was injected with (for `duplicate`), the process waiting for the
;;;    computation's end (or #f), that computation's tag, its share of the computation's
;;;    credit (a power of two; the shares of all live messengers and of the messages in
;;;    flight sum to the whole: weight-throwing termination detection) and the continuation
;;;    that ends it, and its virtual time;
;;;  - every way a messenger ends (its procedure returns, it raises, a hop matches
;;;    nothing, a copy cannot be delivered) gives its credit back exactly once;
;;;  - a copy leaves before the original moves, and once a copy has left a navigation
;;;    never raises (a retried hop would duplicate it): failures are logged and the lost
;;;    copies' credit is given back.

;;; ------------------------------------------------------------ parameters
(define (%kw opts key default)
  (let loop ((o opts))
    (cond ((null? o) default)
          ((and (pair? o) (pair? (cdr o)) (symbol? (car o)))
           (if (eq? (car o) key) (cadr o) (loop (cddr o))))
          (else (error "messengers: parameters come as 'name value pairs" opts)))))

(define (%kw-check who opts allowed)
  (let loop ((o opts))
    (when (and (pair? o) (pair? (cdr o)))
      (unless (memq (car o) allowed)
        (error (string-append (symbol->string who) ": unknown parameter") (car o) allowed))
      (loop (cddr o)))))

;;; ------------------------------------------------------------ the messenger's record
(define (%me-thunk me) (vector-ref me 0))
(define (%me-controller me) (vector-ref me 1))

;; n records sharing me's credit (the same record when nobody waits for the end)
(define (%me-split me n)
  (if (%me-controller me)
      (map (lambda (share)
             (vector (vector-ref me 0) (vector-ref me 1) (vector-ref me 2) share (vector-ref me 4) (vector-ref me 5)))
           (%credit-split (vector-ref me 3) n))
      (make-list n me)))

;;; ------------------------------------------------------------ credit
;; A share of the credit is a power of two, 2^-e, written e (0 is the whole): splitting
;; and summing are integer operations, whatever the depth of the copies.
;; (%credit-split e n): n shares summing to 2^-e: e+1, e+2, ..., e+n-1, e+n-1.
(define (%credit-split e n)
  (let loop ((i 1) (acc '()))
    (if (>= i n)
        (reverse (cons (+ e (- n 1)) acc))
        (loop (+ i 1) (cons (+ e i) acc)))))

;; A sum of shares: #(bits), bit e set when 2^-e is in it (binary, with carries).
(define (%credit-sum) (vector (make-vector 64 #f)))

;; Add share e to sum; #t when the sum is now the whole.
(define (%credit-add! sum e)
  (when (>= e (vector-length (vector-ref sum 0)))
    (let ((bigger (make-vector (max (+ e 1) (* 2 (vector-length (vector-ref sum 0)))) #f)))
      (vector-copy! bigger 0 (vector-ref sum 0))
      (vector-set! sum 0 bigger)))
  (let carry ((e e))
    (let ((bits (vector-ref sum 0)))
      (cond ((not (vector-ref bits e)) (vector-set! bits e #t) (= e 0))
            ((= e 0) (error "messengers: more credit came back than was given"))
            (else (vector-set! bits e #f) (carry (- e 1)))))))

(define (%me-give-back me)
  (let ((c (%me-controller me)))
    (when c (! c (list '%msgr-credit (vector-ref me 2) (vector-ref me 3))))))

(define (%me-with-done me done)
  (vector (vector-ref me 0) (vector-ref me 1) (vector-ref me 2) (vector-ref me 3) done (vector-ref me 5)))

;;; ------------------------------------------------------------ life of a messenger
;; Runs in the messenger's own process: arrive, run the procedure, give the credit back.
;; `done` ends the messenger from anywhere: with 'given when its credit went back already.
(define (%msgr-run addr me thunk)
  (let ((how (call/cc
              (lambda (done)
                (let ((me (%me-with-done me done)))
                  (guard (e (#t (%msgr-finish) (raise e)))
                    (%arrive 'inject #f (vector addr #f #f) me)
                    (thunk)
                    #f))))))
    (unless (eq? how 'given) (%msgr-finish))))

(define (%msgr-finish)
  (when (%msgr?)
    (let ((me (%msgr-me)))
      (%msgr-depart)
      (%me-give-back me))))

;; End this messenger now (its credit goes back on the way out of %msgr-run).
(define (%msgr-vanish)
  ((vector-ref (%msgr-me) 4) #f))

(define (%caller-me thunk)
  (if (%msgr?)
      (let ((halves (%me-split (%msgr-me) 2)))
        (%msgr-set-me! (car halves))
        (cadr halves))
      (vector thunk #f #f 0 #f 0)))

(define (%inject thunk addr me)
  (let ((addr (or addr (if (%msgr?) (%msgr-here) (%lnet-root)))))
    (unless (%lnet-address? addr) (error "inject: expected a logical node address" addr))
    (when (and (%lnet-local? addr) (not (%lnet-exists? addr))) (error "inject: no such logical node" addr))
    (let ((go (lambda () (%msgr-run addr me thunk))))
      (if (%lnet-local? addr)
          (spawn go)
          (remote-spawn (%lnet-physical addr) go)))))

;; (inject thunk [address]): a new messenger running thunk on that logical node (by
;; default the caller's node, or this physical node's root node `init`); its pid.
(define (inject thunk . where)
  (%inject thunk (if (pair? where) (car where) #f) (%caller-me thunk)))

;; (inject-and-wait thunk [address [timeout]]): inject, then wait until that messenger
;; and every messenger descending from it (copies, forks, injections) have ended; #t,
;; or #f when timeout seconds passed first. The waiting process is the computation's
;; controller: it also keeps its global virtual time (see sched-time-abs).
(define (inject-and-wait thunk . opts)
  (let* ((addr (if (pair? opts) (car opts) #f))
         (timeout (if (and (pair? opts) (pair? (cdr opts))) (cadr opts) #f))
         (tag (make-tag))
         (deadline (and timeout (+ (current-second) timeout))))
    (%inject thunk addr (vector thunk (self) tag 0 #f 0))
    (%control tag deadline)))

;; The controller: credit comes back from messengers that end (%msgr-credit) and from
;; those that park until a virtual time (%msgr-park). When all of it is back, no
;; messenger can run at the present virtual time: the global virtual time moves to the
;; earliest parked time and those messengers get their credit back and resume; with
;; none parked, the computation has ended.
(define (%control tag deadline) (%control-from tag deadline (%credit-sum) '()))

;; All credit is back and some messengers are parked: the earliest parked time is the
;; new global virtual time. The whole is split afresh among the parked; the due ones
;; resume with their shares, the shares of the others stay with the controller.
(define (%advance tag deadline parked)
  (let* ((gvt (apply min (map (lambda (p) (vector-ref p 0)) parked)))
         (due (%keep (lambda (p) (= (vector-ref p 0) gvt)) parked))
         (later (%keep (lambda (p) (> (vector-ref p 0) gvt)) parked))
         (shares (%credit-split 0 (length parked)))
         (sum (%credit-sum)))
    (for-each (lambda (p e) (! (vector-ref p 1) (list (vector-ref p 2) e gvt)))
              due (%take shares (length due)))
    (for-each (lambda (e) (%credit-add! sum e)) (list-tail shares (length due)))
    (%control-from tag deadline sum later)))

(define (%control-from tag deadline sum parked)
  (let loop ((sum sum) (whole #f) (parked parked))
    (if whole
        (if (null? parked) #t (%advance tag deadline parked))
        (recv (('%msgr-credit ,tag e) (loop sum (%credit-add! sum e) parked))
              (('%msgr-park ,tag e t pid ptag)
               (loop sum (%credit-add! sum e) (cons (vector t pid ptag) parked)))
              (after (and deadline (max 0 (- deadline (current-second)))) #f)))))

(define (%take xs n) (if (= n 0) '() (cons (car xs) (%take (cdr xs) (- n 1)))))

;; the elements of xs for which (ok? x) holds
(define (%keep ok? xs)
  (let loop ((xs xs) (acc '()))
    (cond ((null? xs) (reverse acc))
          ((ok? (car xs)) (loop (cdr xs) (cons (car xs) acc)))
          (else (loop (cdr xs) acc)))))

;;; ------------------------------------------------------------ virtual time
;; Conservative and synchronous: a messenger parks until virtual time t by giving its
;; credit to the controller; the controller advances the global virtual time only when
;; every messenger of the computation has ended or parked (credit recovery, as for
;; termination), so nothing ever runs out of virtual-time order and nothing rolls back.
(define (virtual-time) (vector-ref (%msgr-me) 5))

(define (sched-time-abs t)
  (let* ((me (%msgr-me)) (c (%me-controller me)) (tag (make-tag)))
    (unless c (error "sched-time-abs: virtual time needs a computation started by inject-and-wait"))
    (unless (and (real? t) (>= t (vector-ref me 5)))
      (error "sched-time-abs: expected a virtual time not before the present one" t (vector-ref me 5)))
    (! c (list '%msgr-park (vector-ref me 2) (vector-ref me 3) t (self) tag))
    (recv ((,tag credit gvt)
           (%msgr-set-me! (vector (vector-ref me 0) c (vector-ref me 2) credit (vector-ref me 4) gvt))
           gvt))))

(define (sched-time-delta dt) (sched-time-abs (+ (virtual-time) dt)))

;; (fork): a copy of this messenger on this node continuing from here; #f in the
;; original, #t in the copy.
(define (fork)
  (let ((addr (%msgr-here)) (link (%msgr-link)) (weight (%msgr-weight))
        (halves (%me-split (%msgr-me) 2)))
    (%msgr-set-me! (car halves))
    (call/cc
     (lambda (k)
       (spawn (lambda () (%msgr-arrive addr link weight (cadr halves)) (k #t)))
       #f))))

;; (duplicate): a new messenger on this node running this one's procedure from the start.
(define (duplicate)
  (let ((me (%msgr-me)))
    (%inject (%me-thunk me) (%msgr-here) (%caller-me (%me-thunk me)))))

;;; ------------------------------------------------------------ network variables
(define (messenger?) (%msgr?))
(define (current-lnode) (%msgr-here))
(define (lnode-name) (%lnet-name (%msgr-here)))
(define (last-link) (%msgr-link))
(define (last-weight) (%msgr-weight))
(define (lnode-address? x) (%lnet-address? x))
(define (lnet-describe) (%lnet-describe))
(define (lnet-root) (%lnet-root))

;;; ------------------------------------------------------------ navigation
;; (hop ['node n] ['link l] ['weight w] ['physical p]): follow every link of this node
;; whose destination name, name, weight and physical node match (omitted or * matches
;; anything); one copy of the messenger per destination. 'node with an address jumps
;; there directly; 'physical without 'link goes to every node of that physical node
;; with a matching name. No destination: the messenger ends (the paper's semantics).
(define (hop . opts) (%navigate 'hop opts))

;; (delete ...): as hop, removing each traversed link; the node left behind is deleted
;; when it has no link left and no other messenger on it.
(define (delete . opts) (%navigate 'delete opts))

(define (%navigate how opts)
  (let parse ((o opts) (node '*) (link '*) (weight '*) (phys '*) (link? #f))
    (cond ((null? o) (%navigate-to how node link weight phys link?))
          ((not (and (pair? o) (pair? (cdr o)) (symbol? (car o))))
           (error "messengers: parameters come as 'name value pairs" opts))
          ((eq? (car o) 'link) (parse (cddr o) node (cadr o) weight phys #t))
          ((eq? (car o) 'node) (parse (cddr o) (cadr o) link weight phys link?))
          ((eq? (car o) 'weight) (parse (cddr o) node link (cadr o) phys link?))
          ((eq? (car o) 'physical) (parse (cddr o) node link weight (cadr o) link?))
          (else (error (string-append (symbol->string how) ": unknown parameter") (car o) '(node link weight physical))))))

(define (%navigate-to how node link weight phys link?)
  (let ((dests
         (cond ((%lnet-address? node)
                (when (eq? how 'delete) (error "delete: no direct jump to an address" node))
                (when (and (%lnet-local? node) (not (%lnet-exists? node)))
                  (error "hop: no such logical node" node))
                (list (vector node #f #f)))
               ((and (not (eq? phys '*)) (not link?) (eq? how 'hop))
                (map (lambda (a) (vector a #f #f))
                     (if (equal? phys (current-node))
                         (%lnet-nodes node)
                         (on phys (lambda () (%lnet-nodes node))))))
               (else (%lnet-match node link weight (if (eq? phys '*) '* (%node-id phys)) (eq? how 'hop))))))
    (cond ((eq? dests #t) (if #f #f))   ; moved already: one destination, on this physical node
          ((null? dests) (%msgr-vanish))
          (else (%go how dests)))))

;; Move along dests (#(address link weight) each): copies first, then this process.
;; One destination (the common case) needs no continuation and no split of the credit.
(define (%go how dests)
  (let ((from (%msgr-here)))
    (when (eq? how 'delete)
      (for-each (lambda (d) (%lnet-unlink! from (vector-ref d 0) (vector-ref d 1))) dests))
    (if (null? (cdr dests))
        (%move-self how from (car dests) (%msgr-me) #f)
        (let* ((ordered (%local-first dests))
               (mes (%me-split (%msgr-me) (length ordered))))
          (call/cc
           (lambda (k)
             (%send-copies k how from (cdr ordered) (cdr mes))
             (%move-self how from (car ordered) (car mes) #t)))))
    (if #f #f)))

(define (%local-first dests)
  (let loop ((ds dests) (skipped '()))
    (cond ((null? ds) dests)
          ((%lnet-local? (vector-ref (car ds) 0)) (cons (car ds) (append (reverse skipped) (cdr ds))))
          (else (loop (cdr ds) (cons (car ds) skipped))))))

;; What a copy or the original does on arriving at d (on d's physical node). A node
;; deleted while the messenger was on its way: the messenger ends, with a log line.
;; (No guard here: a guard costs a continuation capture, and every copy arrives.)
;; A node a drain moved away meanwhile: the messenger follows it (a few moves at most).
(define (%arrive how from d me) (%arrive-within how from d me 8))

(define (%arrive-within how from d me moves)
  (cond ((%msgr-try-arrive (vector-ref d 0) (vector-ref d 1) (vector-ref d 2) me)
         (when (eq? how 'delete) (%lnet-unlink! (vector-ref d 0) from (vector-ref d 1))))
        ((and (> moves 0) (%lnet-moved (vector-ref d 0)))
         (guard (e (#t (%log (string-append "(messengers: a messenger could not follow its logical node and ended: "
                                            (%condition-text e) ")"))
                       (%me-give-back me)
                       ((vector-ref me 4) 'given)))
           (migrate (%lnet-moved (vector-ref d 0))))
         (%arrive-within how from d me (- moves 1)))
        (else
         (%log (string-append "(messengers: a messenger arrived at a logical node that no longer exists, and ended: "
                              (vector-ref d 0) ")"))
         (%me-give-back me)
         ((vector-ref me 4) 'given))))

;; A copy for each destination: a process resuming k there. A copy for another physical
;; node starts here and moves there one way (%msgr-move, as the original does): the
;; messenger sending it waits for no answer. (The paper sends one Messenger per route;
;; here each copy is its own frame.)
(define (%send-copies k how from ds mes)
  (for-each
   (lambda (d me)
     (if (%lnet-local? (vector-ref d 0))
         (spawn (lambda () (%arrive how from d me) (k #t)))
         (let ((phys (%lnet-physical (vector-ref d 0))))
           (spawn (lambda () (when (%copy-to phys me) (%arrive how from d me) (k #t)))))))
   ds mes))

;; Move a copy to physical node phys: #t there; #f here when it could not leave (its
;; physical node cannot be reached): the copy is lost, logged, and its credit goes back.
;; If that node cannot take it, it sends the credit back itself (the notice).
(define (%copy-to phys me)
  (let ((failure (%msgr-move phys (%me-controller me) (list '%msgr-credit (vector-ref me 2) (vector-ref me 3)))))
    (cond ((error-object? failure)
           (%log (string-append "(messengers: copies lost, their physical node cannot be reached: "
                                (%condition-text failure) ")"))
           (%me-give-back me)
           #f)
          (else #t))))

(define (%condition-text e)
  (if (error-object? e) (error-object-message e) "raised a non-error value"))

;; The original moves last. A move within this physical node is a table update; to
;; another one it is a one-way migration (%msgr-move: one frame, no answer; no guard
;; either, so the continuation that travels is no longer than it must be). If the move
;; is not made (the node is unreachable, the state does not encode), the messenger is
;; still here: with no copy sent, back on its node with the error raised (a retry
;; duplicates nothing); with copies sent, it ends with a log line and gives its credit
;; back. If the other node cannot take it, it ends there and that node sends its
;; credit to the controller (the notice).
(define (%move-self how from d me copies?)
  (let ((addr (vector-ref d 0)))
    (if (%lnet-local? addr)
        (begin (%msgr-arrive addr (vector-ref d 1) (vector-ref d 2) me)
               (when (eq? how 'delete)
                 (%lnet-unlink! addr from (vector-ref d 1))
                 (%lnet-delete-if-empty! from)))
        (let ((phys (%lnet-physical addr)))
          (%msgr-depart)
          (when (eq? how 'delete) (%lnet-delete-if-empty! from))
          (let ((failure (%msgr-move phys (%me-controller me) (list '%msgr-credit (vector-ref me 2) (vector-ref me 3)))))
            (if (error-object? failure)
                (%move-failed from me copies? failure)
                (%arrive how from d me)))))))

(define (%move-failed from me copies? e)
  (cond ((and (not copies?) (%lnet-exists? from))
         (%msgr-arrive from #f #f me)
         (raise e))
        (else
         (%log (string-append "(messengers: a messenger could not move and ended: " (%condition-text e) ")"))
         (%me-give-back me)
         ((vector-ref me 4) 'given))))

;; (create ['node name-or-address] ['link l] ['weight w] ['physical p] ['directed #t]):
;; a new logical node (on p, or on the physical node, of this one and those reachable,
;; this node has placed the fewest on), a link to it from this node (and back, unless
;; directed), and the messenger moves there along it. With an address as 'node, only
;; the link is made, to that existing node.
(define (create . opts)
  (%kw-check 'create opts '(node link weight physical directed))
  (let* ((name (%kw opts 'node #f))
         (link (%kw opts 'link #f))
         (weight (%kw opts 'weight #f))
         (directed (%kw opts 'directed #f))
         (from (%msgr-here))
         (from-name (%lnet-name from))
         (existing (%lnet-address? name))
         (phys (cond (existing (%lnet-physical name))
                     ((%kw opts 'physical #f))
                     (else (%lnet-place (cons (current-node) (%reachable-nodes))))))
         (make (lambda ()
                 (let ((addr (if existing name (%lnet-make-node name))))
                   (unless directed (%lnet-link! addr from link weight from-name))
                   (vector addr (%lnet-name addr)))))
         (made (if (equal? phys (current-node)) (make) (on phys make))))
    (%lnet-link! from (vector-ref made 0) link weight (vector-ref made 1))
    (%move-self 'create from (vector (vector-ref made 0) link weight) (%msgr-me) #f)
    (vector-ref made 0)))

(define (%reachable-nodes)
  (guard (e (#t '())) (mesh-nodes)))

;;; ------------------------------------------------------------ node variables
;; Shared by the messengers on a logical node. Values are copied in and out, as messages.
(define (node-ref name . default) (%node-var-ref name (if (pair? default) (car default) #f)))

(define (node-set! name value)
  (%wake-waiters name (%node-var-set! name value -1) value))

;; (node-update! name proc [default]): set name to (proc old) atomically (a retried
;; compare-and-set on the variable's version: other messengers run in between); old.
(define (node-update! name proc . default)
  (let ((dflt (if (pair? default) (car default) #f)))
    (let loop ()
      (let* ((cell (%node-var-get name dflt))
             (new (proc (cdr cell)))
             (waiters (%node-var-set! name new (car cell))))
        (if waiters
            (begin (%wake-waiters name waiters new) (cdr cell))
            (loop))))))

;; (node-ref-at address name [default]): a node variable of any logical node.
(define (node-ref-at addr name . default)
  (let ((dflt (if (pair? default) (car default) #f)))
    (%at addr (lambda () (%node-var-ref-at addr name dflt)))))

;; Run thunk on the physical node holding addr; where a drain moved it from, again from
;; there (a few moves at most).
(define (%at addr thunk) (%at-within addr thunk 8))
(define (%at-within addr thunk moves)
  (if (or (%lnet-local? addr) (= moves 0))
      (thunk)
      (on (%lnet-physical addr) (lambda () (%at-within addr thunk (- moves 1))))))

;; The writer re-checks each waiter's predicate on the value it wrote; whoever takes a
;; waiter off the list (the writer here, or the waiter itself) is the one who wakes it.
(define (%wake-waiters name waiters value)
  (for-each
   (lambda (w)
     (when (and (guard (e (#t #f)) ((vector-ref w 3) value))
                (%node-var-unwait! name (vector-ref w 0)))
       (! (vector-ref w 1) (list (vector-ref w 2) value))))
   (if (pair? waiters) waiters '())))

;; (wait-until name pred): block, without polling, until (pred value-of-name) holds on
;; this logical node; the value that made it hold. Re-checked at each write of that
;; variable here, by the writer.
(define (wait-until name pred)
  (let* ((tag (make-tag))
         (id (%node-var-wait! name pred tag))
         (now (node-ref name)))
    (if (and (pred now) (%node-var-unwait! name id))
        now
        (recv ((,tag v) v)))))

;;; ------------------------------------------------------------ mailboxes
;; (m-send address value): into the mailbox of a logical node, here or on another
;; physical node (a clear error when it does not exist).
(define (m-send addr value)
  (%at addr (lambda () (%m-post addr value)))
  (if #f #f))

(define (%m-post addr value)
  (let ((w (%lnode-post addr value)))
    (when w (! (car w) (list (cdr w) value)))
    #t))

;; (m-recv [timeout [default]]): the oldest message of this logical node's mailbox,
;; waiting for one; after timeout seconds the default, or raise 'timeout.
(define (m-recv . opts)
  (let* ((tag (make-tag))
         (got (%lnode-take tag)))
    (if got
        (car got)
        (let ((addr (%msgr-here))
              (timeout (if (pair? opts) (car opts) #f)))
          (recv ((,tag v) v)
                (after timeout
                       (if (%lnode-untake addr tag)
                           (if (and (pair? opts) (pair? (cdr opts))) (cadr opts) (raise 'timeout))
                           (recv ((,tag v) v)))))))))

;;; ------------------------------------------------------------ draining a physical node
;; (drain-node target): move this physical node's logical nodes (their variables,
;; mailboxes, links and waiters, under the same addresses) and every process of it that
;; can move (messengers among them, back on their logical nodes) to the node target.
;; Returns ((moved pid ...) (stayed #(pid reason) ...) (failed (pid reason) ...)
;; (logical-nodes . n)). The logical nodes go first, in one remote call; then each
;; process, set up by %drain-prepare! to wait for the go, migrates itself.
(define (drain-node target)
  (unless (node? target) (error "drain-node: expected a node" target))
  (when (equal? (%node-id target) (%node-id (current-node))) (error "drain-node: the target is this node" target))
  (let* ((tag (make-tag))
         (nodes (%drain-export! (%node-id target)))
         (plan (%drain-prepare! tag))
         (moving (vector-ref plan 0))
         (go (lambda (v) (for-each (lambda (p) (! p (list tag v))) moving))))
    (guard (e (#t (%lnet-adopt! nodes) (go #f) (raise e)))
      (unless (null? nodes) (on target (lambda () (%lnet-adopt! nodes)))))
    (go target)
    (let loop ((left (length moving)) (moved '()) (failed '()))
      (if (= left 0)
          (%drain-report moved (vector-ref plan 1) failed nodes)
          (recv ((,tag 'moved p) (loop (- left 1) (cons p moved) failed))
                ((,tag 'failed p why) (loop (- left 1) moved (cons (list p why) failed)))
                (after 60 (%drain-report moved (vector-ref plan 1)
                                         (cons (list left "processes did not report within 60 s") failed) nodes)))))))

(define (%drain-report moved stayed failed nodes)
  (list (cons 'moved (reverse moved)) (cons 'stayed stayed) (cons 'failed (reverse failed))
        (cons 'logical-nodes (length nodes))))

;; What a process drain-node set up to move runs next (distribution/drain.js): wait for
;; the go — the target, or #f when the drain was called off — migrate, put a messenger
;; (st: #(address link weight me)) back on its logical node, tell the drainer, and do what
;; it was about to do: return x, call x with args, or receive with ?.
(define (%drain-resume tag drainer st how x args)
  (let* ((target (recv ((,tag target) target)))
         (failure (and target
                       (begin (when st (%msgr-depart))
                              (guard (e (#t (%condition-text e))) (migrate target) #f)))))
    (when (and st (not (%msgr-try-arrive (vector-ref st 0) (vector-ref st 1) (vector-ref st 2) (vector-ref st 3))))
      (when target (! drainer (list tag 'failed (self) (or failure "its logical node was not there"))))
      (%log (string-append "(messengers: a drain could not move a messenger, which ended: "
                           (or failure "its logical node was not there") ")"))
      (%me-give-back (vector-ref st 3))
      ((vector-ref (vector-ref st 3) 4) 'given))
    (when target (! drainer (if failure (list tag 'failed (self) failure) (list tag 'moved (self)))))
    (case how
      ((return) x)
      ((call) (apply x args))
      (else (?)))))
