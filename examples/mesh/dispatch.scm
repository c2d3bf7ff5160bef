;; Work dispatch across the mesh (Termite paper §5.1).
;;
;; A meter process on every node reports that node's load to a meter supervisor every
;; 200 ms; the dispatcher sends each job (a thunk) to the least-loaded node by spawning
;; a process that migrates there and runs it. Run it on a daemon that has worker tabs
;; (or other daemons) connected:
;;   termite-node run examples/mesh/dispatch.scm --join ws://127.0.0.1:7400 --token T
;; It prints how many jobs each kind of node ran and checks every result.

;; A meter stops by itself once the supervisor is gone (its node left the mesh, or it
;; was terminated), so a meter never outlives the program that started it; the program
;; also stops its meters and the supervisor when it is done (at the end).
(define (meter supervisor)
  (let loop ()
    (! supervisor (list 'load-report (current-node) (node-load)))
    (sleep 0.2)
    (if (process-alive? supervisor) (loop))))

;; The supervisor keeps the last reported load of each node, and counts the jobs it
;; has sent to each one since its last report (so a burst of jobs spreads out).
(define (meter-supervisor)
  (let loop ((loads '()))
    (recv
      (('load-report node load)
       (loop (cons (list node load 0) (remove-node node loads))))
      ((from tag 'minimum-load)
       (let ((best (least-loaded loads)))
         (! from (list tag (car best)))
         (loop (cons (list (car best) (cadr best) (+ 1 (caddr best)))
                     (remove-node (car best) loads))))))))

(define (remove-node node loads)
  (cond ((null? loads) '())
        ((equal? (car (car loads)) node) (cdr loads))
        (else (cons (car loads) (remove-node node (cdr loads))))))

(define (score entry) (+ (cadr entry) (* 0.25 (caddr entry))))

(define (least-loaded loads)
  (let loop ((best (car loads)) (rest (cdr loads)))
    (cond ((null? rest) best)
          ((< (score (car rest)) (score best)) (loop (car rest) (cdr rest)))
          (else (loop best (cdr rest))))))

(define supervisor (spawn meter-supervisor))
;; DISPATCH_NODES=k first waits (at most 20 s) until k other nodes are in the mesh.
(define wanted (string->number (or (get-environment-variable "DISPATCH_NODES") "0")))
(define nodes
  (cons (current-node)
        (let wait ((tries 0))
          (let ((ns (mesh-nodes)))
            (if (or (>= (length ns) wanted) (> tries 100)) ns (begin (sleep 0.2) (wait (+ tries 1))))))))
(define meters (map (lambda (n) (remote-spawn n (lambda () (meter supervisor)))) nodes))

;; wait until every node has reported once
(let wait ((k 0))
  (if (< k (length nodes)) (begin (sleep 0.25) (wait (+ k 1)))))

;; dispatch: run thunk on the least-loaded node; the answer comes back tagged
(define (dispatch thunk)
  (let ((node (!? supervisor 'minimum-load 5))
        (me (self))
        (tag (make-tag)))
    (spawn (lambda ()
             (migrate node)
             (! me (list tag (current-node) (thunk)))))
    tag))

(define (fib n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2)))))
(define jobs (let loop ((i 0) (acc '())) (if (= i 24) (reverse acc) (loop (+ i 1) (cons (+ 18 (modulo i 6)) acc)))))
(define tags (map (lambda (n) (dispatch (lambda () (fib n)))) jobs))
(define answers (map (lambda (tag) (recv ((,tag node value) (list node value)))) tags))

(define correct (equal? (map cadr answers) (map fib jobs)))
(define used
  (let loop ((as answers) (seen '()))
    (cond ((null? as) seen)
          ((member (car (car as)) seen) (loop (cdr as) seen))
          (else (loop (cdr as) (cons (car (car as)) seen))))))
(define tabs-used
  (let loop ((ns used) (k 0))
    (cond ((null? ns) k)
          ((eq? (on (car ns) (lambda () (node-kind))) 'tab) (loop (cdr ns) (+ k 1)))
          (else (loop (cdr ns) k)))))
(display (list 'jobs (length jobs) 'correct correct 'nodes-used (length used) 'tabs-used tabs-used 'nodes (length nodes)))
(newline)

;; end what we started: the meters on every node, then the supervisor
(for-each terminate! meters)
(terminate! supervisor)
