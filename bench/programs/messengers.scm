;; The (termite messengers) benchmarks' Scheme side (run by bench/messengers.js, which
;; prepends the shortest-path example's definitions for the shortest_path group).
;; Env: MSGR_GROUPS (local twonode), K (repetitions), PEER_PORT (the daemon, for twonode).
;; Prints `result NAME VALUE` lines.
(define groups (or (get-environment-variable "MSGR_GROUPS") "local"))
(define (group? g) (let loop ((i 0)) (and (<= (+ i (string-length g)) (string-length groups))
                                          (or (string=? (substring groups i (+ i (string-length g))) g) (loop (+ i 1))))))
(define k (string->number (or (get-environment-variable "K") "20000")))
(define (seconds-since t0) (/ (- (current-jiffy) t0) (exact->inexact (jiffies-per-second))))
(define (result name value) (display "result ") (display name) (display " ") (display value) (newline))
(define me (self))
(define root (lnet-root))

;; a ping-pong of (pid . payload) with an echo process: round trips per second
(define (pingpong echo payload count)
  (let loop ((i 0)) (when (< i count) (! echo (cons me payload)) (?) (loop (+ i 1)))))
(define (echo-loop) (let ((m (?))) (! (car m) (cdr m)) (echo-loop)))

;; a messenger carrying payload hopping count times along link l; hops per second
(define (hopper payload count)
  (lambda ()
    (let loop ((i 0)) (when (< i count) (hop 'link 'l) (loop (+ i 1))))
    (! me (list 'hopped (bytevector-length payload)))))

(define (rate count thunk)
  (let ((t0 (current-jiffy))) (thunk) (/ count (seconds-since t0))))

(when (group? "local")
  (let ((echo (spawn echo-loop)))
    (pingpong echo 0 2000)
    (result "pingpong.local" (rate k (lambda () (pingpong echo 0 k)))))
  (inject-and-wait (lambda () (create 'node 'a 'link 'l 'physical (current-node))) root)
  (inject-and-wait (hopper (bytevector) 2000) root)
  (result "messengers.hop.local" (rate k (lambda () (inject-and-wait (hopper (bytevector) k) root))))
  (result "messengers.create" (rate (quotient k 4)
    (lambda () (inject-and-wait (lambda () (let loop ((i 0)) (when (< i (quotient k 4)) (create 'link 'c 'physical (current-node)) (loop (+ i 1))))) root)))))

(when (group? "twonode")
  (let* ((a (make-node "127.0.0.1" (string->number (get-environment-variable "PEER_PORT"))))
         (payload (make-bytevector 800 7))
         (echo (remote-spawn a echo-loop))
         (n2 (quotient k 10)))
    (pingpong echo payload 200)
    (result "pingpong.800.ws.2node" (rate n2 (lambda () (pingpong echo payload n2))))
    ;; a plain process carrying the same payload, migrating between the two: the floor
    (let ((home (current-node)))
      (result "migrate.800.2node"
              (rate n2 (lambda ()
                         (spawn (lambda ()
                                  (let loop ((i 0))
                                    (when (< i n2) (migrate (if (even? i) a home)) (loop (+ i 1))))
                                  (! me (list 'migrated (bytevector-length payload)))))
                         (recv (('migrated _) #t))))))
    (inject-and-wait (lambda () (create 'node 'far 'link 'l 'physical a)) root)
    (inject-and-wait (hopper payload 200) root)
    (result "messengers.hop.2node" (rate n2 (lambda () (inject-and-wait (hopper payload n2) root))))))

;; Communication against computation (the paper's Figure 10): two messengers hop between
;; the two physical nodes, doing d floating-point divisions at each stop, against the same
;; divisions done sequentially here; prints the ratio parallel / sequential for each d.
(define (divisions d)
  (let loop ((i 0) (x 1e300)) (if (< i d) (loop (+ i 1) (/ x 1.0000001)) x)))
(define (ms-of thunk) (let ((t0 (current-jiffy))) (thunk) (* 1000 (seconds-since t0))))

(when (group? "grain")
  (let ((a (make-node "127.0.0.1" (string->number (get-environment-variable "PEER_PORT"))))
        (stops 16))
    (inject-and-wait (lambda () (create 'node 'gfar 'link 'g 'physical a)) root)
    (for-each
     (lambda (d)
       (let ((par (ms-of (lambda ()
                           (inject-and-wait
                            (lambda ()
                              (when (fork) (hop 'link 'g))    ; one messenger on each physical node
                              (let loop ((i 0)) (when (< i stops) (divisions d) (hop 'link 'g) (loop (+ i 1)))))
                            root))))
             (seq (ms-of (lambda () (let loop ((i 0)) (when (< i (* 2 stops)) (divisions d) (loop (+ i 1))))))))
         (result (string-append "grain." (number->string d)) (/ par seq))))
     '(1000 4000 16000 64000 256000 1024000))))
