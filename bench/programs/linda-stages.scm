;; One workload of bench/linda-stages.js, run on a node joined to a daemon at
;; 127.0.0.1:PEER_PORT, both under `node --cpu-prof`: WORKLOAD is
;;   rtt  (out s 'x i) then (in s 'x i) on a central space of the daemon;
;;   rpc  RPC by tuples: (out s 'req i bytes), a server on the daemon
;;        (in s 'req ?integer ?bytes) → (out s 'resp i bytes), then (in s 'resp i ?bytes) here;
;;   msg  the same bytes to an echo process on the daemon and back (Termite messages);
;;   rpc-local, msg-local  rpc and msg with the server and the echo process on this node
;;        (a local space): what the processes' Linda operations cost without the network.
;; WARMUP iterations, then N timed ones (SIZE payload bytes); prints
;; "timed" before the timed iterations, then "result <workload> <n> <microseconds per
;; iteration>". Every loop is bounded by its count.
(define peer (make-node "127.0.0.1" (string->number (get-environment-variable "PEER_PORT"))))
(define workload (get-environment-variable "WORKLOAD"))
(define n (string->number (get-environment-variable "N")))
(define warmup (string->number (get-environment-variable "WARMUP")))
(define bv (make-bytevector (string->number (get-environment-variable "SIZE")) 7))
(define (now) (/ (current-jiffy) (exact->inexact (jiffies-per-second))))
(define s (make-space 'stages 'central peer))
(define echo (remote-spawn peer (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
(when (equal? workload "rpc")
  (remote-spawn peer (lambda () (let loop () (let ((r (in s 'req ?integer ?bytes))) (out s 'resp (cadr r) (caddr r)) (loop))))))
(define ls (make-space 'stages-local))
(when (equal? workload "rpc-local")
  (spawn (lambda () (let loop () (let ((r (in ls 'req ?integer ?bytes))) (out ls 'resp (cadr r) (caddr r)) (loop))))))
(define local-echo (spawn (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
(define (rtt k) (do ((i 0 (+ i 1))) ((= i k)) (out s 'x i) (in s 'x i)))
(define (rpc k) (do ((i 0 (+ i 1))) ((= i k)) (out s 'req i bv) (in s 'resp i ?bytes)))
(define (msg k) (let ((me (self))) (do ((i 0 (+ i 1))) ((= i k)) (! echo (cons me bv)) (?))))
(define (rpc-local k) (do ((i 0 (+ i 1))) ((= i k)) (out ls 'req i bv) (in ls 'resp i ?bytes)))
(define (msg-local k) (let ((me (self))) (do ((i 0 (+ i 1))) ((= i k)) (! local-echo (cons me bv)) (?))))
(define run (cond ((equal? workload "rtt") rtt) ((equal? workload "rpc") rpc) ((equal? workload "rpc-local") rpc-local)
                  ((equal? workload "msg-local") msg-local) (else msg)))
(run warmup)
(display "timed") (newline) ; bench/linda-stages.js reads both processes' CPU here and after the result
(let ((t0 (now)))
  (run n)
  (display "result ") (display workload) (display " ") (display n) (display " ")
  (display (/ (* (- (now) t0) 1e6) n)) (newline))
