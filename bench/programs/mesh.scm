;; Two-node workloads (BENCHMARKS.md), run by bench/mesh.js on a node joined to a
;; daemon (another OS process) at 127.0.0.1:PEER_PORT. MESH_GROUPS selects them (space
;; separated: pingpong remote_spawn migrate payload1k payload64k stream); NAME_SUFFIX
;; names the transport (ws, tcp, tls or webrtc). Prints "result <name> <round> <value>" per timed round,
;; after untimed warm-up rounds (warm-up below). Every loop is bounded by its count.
(define peer (make-node "127.0.0.1" (string->number (get-environment-variable "PEER_PORT"))))
(define groups (or (get-environment-variable "MESH_GROUPS") "pingpong"))
(define suffix (or (get-environment-variable "NAME_SUFFIX") "ws"))
(define rounds (string->number (or (get-environment-variable "ROUNDS") "5")))
(define scale (string->number (or (get-environment-variable "SCALE") "1")))
(define (count n) (max 1 (exact (round (* n scale)))))
(define (now) (/ (current-jiffy) (exact->inexact (jiffies-per-second))))
(define (wanted? g)
  (let loop ((i 0))
    (cond ((> (+ i (string-length g)) (string-length groups)) #f)
          ((string=? (substring groups i (+ i (string-length g))) g) #t)
          (else (loop (+ i 1))))))
(define (result name round value)
  (display "result ") (display name) (display " ") (display round) (display " ") (display value) (newline))
;; Warm-up: (run) at least twice, and again until WARM_SECONDS (default 3) have passed,
;; at most 100 times. Both nodes' JITs must reach their steady state before the timed
;; rounds: V8 optimises code that runs once per operation only after thousands of
;; operations (a remote spawn's first 500 took 3x as long as its 5,000th; two runs of
;; ping-pong were enough, two runs of remote spawns were not).
(define warm-seconds (string->number (or (get-environment-variable "WARM_SECONDS") "3")))
(define (warm-up run)
  (let ((t0 (now)))
    (let loop ((i 1))
      (run)
      (if (and (< i 100) (or (< i 2) (< (- (now) t0) warm-seconds)))
          (loop (+ i 1))))))
;; (timed-rounds name n run per): warm-up, then `rounds` timed runs of (run n);
;; value (per n secs)
(define (timed-rounds name n run per)
  (warm-up (lambda () (run n)))
  (do ((r 1 (+ r 1))) ((> r rounds))
    (let ((t0 (now)))
      (run n)
      (result name r (per n (- (now) t0))))))
(define (rate n secs) (/ n secs))
(define (micros n secs) (/ (* secs 1e6) n))

;; an echo server on the peer: (from . x) -> x back to from
(define (echo-server)
  (remote-spawn peer (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))

(define (ping-pong server msg n)
  (let ((me (self)))
    (let loop ((i 0))
      (if (< i n)
          (begin (! server (cons me msg)) (?) (loop (+ i 1)))))))

(if (wanted? "pingpong")
    (let ((s (echo-server)))
      (timed-rounds (string-append "pingpong." suffix ".2node") (count 4000) (lambda (n) (ping-pong s 0 n)) rate)))

(if (wanted? "payload1k")
    (let ((s (echo-server)) (bv (make-bytevector 1024 7)))
      (timed-rounds (string-append "payload.1k." suffix ".2node") (count 3000) (lambda (n) (ping-pong s bv n)) rate)))

(if (wanted? "payload64k")
    (let ((s (echo-server)) (bv (make-bytevector 65536 7)))
      (timed-rounds (string-append "payload.64k." suffix ".2node") (count 600) (lambda (n) (ping-pong s bv n)) rate)))

;; a stream: n messages of 16 bytes one way to a process on the peer, which answers once
;; when it has received them all (as stream.erl does); messages per second, from the
;; first send to the answer
(if (wanted? "stream")
    (let ((bv (make-bytevector 16 7)) (me (self)))
      (define (trip n)
        (let* ((tag (make-tag))
               (sink (remote-spawn peer (lambda ()
                                          (let loop ((i 0))
                                            (if (< i n) (begin (?) (loop (+ i 1))) (! me (list tag 'done))))))))
          (do ((i 0 (+ i 1))) ((= i n)) (! sink bv))
          (recv ((,tag 'done) #t) (after 120 (error "no answer from the stream's sink")))))
      (timed-rounds (string-append "stream." suffix ".2node") (count 1000000) trip rate)))

;; remote spawn of a closure over local data; the spawned process answers with a value
;; computed from that data (as remote_spawn.erl does)
(if (wanted? "remote_spawn")
    (let ((data (list '(1 2 3) "local data" 42)) (me (self)))
      (define (one)
        (let ((tag (make-tag)))
          (remote-spawn peer (lambda () (! me (list tag (+ (apply + (car data)) (caddr data))))))
          (recv ((,tag 48) #t) (after 10 (error "no reply from the spawned process")))))
      (timed-rounds (string-append "remote_spawn." suffix ".2node") (count 500)
                    (lambda (n) (do ((i 0 (+ i 1))) ((= i n)) (one))) micros)))

;; a process hopping between this node and the peer, reporting after each hop; ms per
;; migration, the median of the single hops of each round
(if (wanted? "migrate")
    (let* ((home (current-node))
           (me (self))
           (hopper (spawn (lambda ()
                            (let loop ((hops 0))
                              (recv (('go to) (migrate to) (! me (list 'arrived hops))))
                              (loop (+ hops 1)))))))
      (define (hops n)
        (let loop ((i 0) (times '()))
          (if (< i n)
              (let ((t0 (now)))
                (! hopper (list 'go (if (even? i) peer home)))
                (recv (('arrived _) #t) (after 10 (error "the migrating process did not report")))
                (loop (+ i 1) (cons (- (now) t0) times)))
              times)))
      (define (median xs)
        (let ((v (list->vector (list-sort < xs))))
          (vector-ref v (quotient (vector-length v) 2))))
      (define n (* 2 (count 200)))
      (warm-up (lambda () (hops n)))
      (do ((r 1 (+ r 1))) ((> r rounds))
        (result (string-append "migrate." suffix ".2node") r (* 1000 (median (hops n)))))))
