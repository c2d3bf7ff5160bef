;; Versioned mobile libraries (docs/mesh.md, "Versioned libraries"): code using
;; (geometry shapes@1.0), which the daemon publishes, runs on a worker tab that never
;; saw the library: the tab fetches it from the daemon, checks its signature and hash,
;; installs it. Then a service running 1.0 on the tab is updated to 2.0 by sending it
;; a procedure compiled against 2.0: it keeps its state and loses no message.
;; Without a tab, everything runs on the daemon instead.
(import (scheme base) (scheme write) (termite)
        (prefix (geometry shapes@1.0) v1:) (prefix (geometry shapes@2.0) v2:))

;; the daemon this program joined, and a worker tab if the mesh has one
(define (kind n) (on n (lambda () (node-kind))))
(define (first-of k ns) (cond ((null? ns) #f) ((eq? (kind (car ns)) k) (car ns)) (else (first-of k (cdr ns)))))
(define daemon (or (first-of 'daemon (mesh-nodes)) (error "join a daemon: --join ws://127.0.0.1:7400")))
(define worker (or (first-of 'tab (mesh-nodes)) daemon))

;; run a thunk, or start a process, on the worker, sent there by the daemon
(define (here? n) (equal? n (current-node)))
(define (on-worker thunk) (on daemon (lambda () (if (here? worker) (thunk) (on worker thunk)))))
(define (spawn-on-worker thunk) (on daemon (lambda () (if (here? worker) (spawn thunk) (remote-spawn worker thunk)))))

;; 1. a procedure of 1.0 runs there (a tab fetches the library from the daemon)
(write (on-worker (lambda () (map v1:area '((square 3) (circle 2)))))) (newline)

;; 2. a service of 1.0 there
(define service (spawn-on-worker (lambda () (v1:serve 0))))
(write (!? service '(describe (circle 1)) 10)) (newline)

;; 3. 100 requests at full rate, and in their middle the update: a procedure of 2.0
(define me (self))
(let loop ((i 0))
  (when (< i 100)
    (when (= i 50) (! service (list 'upgrade (lambda (served) (v2:serve served)))))
    (! service (list me i (list 'describe (list 'square i))))
    (loop (+ i 1))))
(define (version-of answer) (list-ref (if (pair? (car answer)) (car answer) answer) 4))
(let loop ((i 0) (in-order #t) (updated-at #f))
  (if (= i 100)
      (begin (write (list 'answers i 'in-order in-order 'updated-at updated-at)) (newline))
      (recv
        ((k answer)
         (loop (+ i 1) (and in-order (= k i))
               (or updated-at (and (equal? (version-of answer) "shapes 2.0") i))))
        (after 10 (error "an answer is missing" i)))))

;; 4. the service goes on as 2.0, with its count kept across the update
(write (!? service '(describe (circle 1)) 10)) (newline)
(write (list 'ran-on (kind worker))) (newline)
