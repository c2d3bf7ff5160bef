;; Tuple spaces across two nodes (bench/linda.js, BENCHMARKS.md), run on a node joined to
;; a daemon (another OS process) at 127.0.0.1:PEER_PORT; the durable figure uses a second
;; daemon, started with --data, at 127.0.0.1:DURABLE_PORT. Prints
;; "result <name> <round> <value>" per timed round after warm-up runs; every loop is
;; bounded by its count.
;;   pingpong.ws.2node        rt/s  a message to an echo process on the daemon and back
;;   linda.central.rtt.2node  us    (out s 'x i) then (in s 'x i) on a central space of the daemon
;;   linda.rpc.<size>.2node   rt/s  RPC by tuples: (out s 'req i bytes), a server on the daemon
;;                                  (in s 'req ?integer ?bytes) → (out s 'resp i bytes), then
;;                                  (in s 'resp i ?bytes) here (L2imbo's Table 1)
;;   rpc.msg.<size>.2node     rt/s  the same request and response as Termite messages (the
;;                                  bytes to the echo process and back): RPC by tuples' fair
;;                                  reference beside the bare ws echo
;;   linda.central.rtt.durable.2node  us  the same on a durable central space (the --data daemon)
;;   linda.durable.out        outs/s  outs into a durable central space, timed on that daemon
;;   linda.distributed.rd     us    (rd ds 'shared 1 ?bytes) of a tuple the daemon put in a
;;                                  distributed space, served from this node's replica
;;   linda.distributed.rpc.256.2node  rt/s  RPC by tuples on a distributed space: the server on
;;                                  the daemon announces its in, so each request is owned by it,
;;                                  and each response by this node (the RPC optimisation)
;; PART=main runs all but the RPC figures, PART=rpc only them (linda.rpc.* and rpc.msg.*):
;; bench/linda.js runs the RPC part once per round, between rounds of the bare ws echo.
(define peer (make-node "127.0.0.1" (string->number (get-environment-variable "PEER_PORT"))))
(define durable-peer (make-node "127.0.0.1" (string->number (get-environment-variable "DURABLE_PORT"))))
(define rounds (string->number (or (get-environment-variable "ROUNDS") "3")))
(define scale (string->number (or (get-environment-variable "SCALE") "1")))
(define part (or (get-environment-variable "PART") "all"))
(define main? (not (equal? part "rpc")))
(define rpc? (not (equal? part "main")))
(define durable-bytes (string->number (or (get-environment-variable "DURABLE_BYTES") "64")))
(define (count n) (max 1 (exact (round (* n scale)))))
(define (now) (/ (current-jiffy) (exact->inexact (jiffies-per-second))))
(define (result name round value)
  (display "result ") (display name) (display " ") (display round) (display " ") (display value) (newline))
(define (timed-rounds name n run per)
  (run n) (run n) ; warm-up: both nodes' JITs
  (do ((r 1 (+ r 1))) ((> r rounds))
    (let ((t0 (now)))
      (run n)
      (result name r (per n (- (now) t0))))))
(define (rate n secs) (/ n secs))
(define (micros n secs) (/ (* secs 1e6) n))

(define echo (remote-spawn peer (lambda () (let loop () (let ((m (?))) (! (car m) (cdr m)) (loop))))))
(define (ping-pong n)
  (let ((me (self)))
    (do ((i 0 (+ i 1))) ((= i n)) (! echo (cons me 0)) (?))))

(define (msg-rpc size)
  (let ((me (self)) (bv (make-bytevector size 7)))
    (lambda (n) (do ((i 0 (+ i 1))) ((= i n)) (! echo (cons me bv)) (?)))))

(define s (make-space 'bench 'central peer))
(define (out-in-on space)
  (lambda (n) (do ((i 0 (+ i 1))) ((= i n)) (out space 'x i) (in space 'x i))))
(define out-in (out-in-on s))

(when rpc? (remote-spawn peer (lambda () (let loop () (let ((r (in s 'req ?integer ?bytes))) (out s 'resp (cadr r) (caddr r)) (loop))))))
(define (rpc size)
  (let ((bv (make-bytevector size 7)))
    (lambda (n) (do ((i 0 (+ i 1))) ((= i n)) (out s 'req i bv) (in s 'resp i ?bytes)))))

;; a distributed space made on the daemon, with a tuple there; this node joins it
(define ds (and main? (on peer (lambda () (let ((d (make-space 'bench-dts 'distributed))) (out d 'shared 1 (make-bytevector 64 3)) d)))))
(when main? (rd ds 'shared 1 ?bytes))
(define (rd-dist n) (do ((i 0 (+ i 1))) ((= i n)) (rd ds 'shared 1 ?bytes)))
(when main? (remote-spawn peer (lambda () (let loop () (let ((r (in ds 'req ?integer ?bytes))) (out ds 'resp (cadr r) (caddr r)) (loop))))))
(define (rpc-dist size)
  (let ((bv (make-bytevector size 7)))
    (lambda (n) (do ((i 0 (+ i 1))) ((= i n)) (out ds 'req i bv) (in ds 'resp i ?bytes)))))

;; interleaved, so that each figure and its reference see the same load
(when main?
  (do ((pass 0 (+ pass 1))) ((= pass 2))
    (timed-rounds "pingpong.ws.2node" (count 3000) ping-pong rate)
    (timed-rounds "linda.central.rtt.2node" (count 1000) out-in micros)
    (timed-rounds "linda.distributed.rd" (count 20000) rd-dist micros))
  (timed-rounds "linda.distributed.rpc.256.2node" (count 1000) (rpc-dist 256) rate))
(when rpc?
  (timed-rounds "linda.rpc.256.2node" (count 1000) (rpc 256) rate)
  (timed-rounds "rpc.msg.256.2node" (count 1000) (msg-rpc 256) rate)
  (timed-rounds "linda.rpc.1k.2node" (count 1000) (rpc 1024) rate)
  (timed-rounds "rpc.msg.1024.2node" (count 1000) (msg-rpc 1024) rate)
  (timed-rounds "linda.rpc.8k.2node" (count 600) (rpc 8192) rate)
  (timed-rounds "rpc.msg.8192.2node" (count 600) (msg-rpc 8192) rate))
(when main?
  (timed-rounds "linda.central.rtt.durable.2node" (count 1000) (out-in-on (make-space 'bench 'central durable-peer)) micros))

;; durable outs, timed on the daemon itself (its own clock), into a central space of it
(define n-durable (count 3000))
(do ((r 1 (+ r 1))) ((or (not main?) (> r rounds)))
  (result "linda.durable.out" r
          (on durable-peer (lambda ()
                     (let ((d (make-space 'bench-durable 'central)) (bv (make-bytevector durable-bytes 1)) (t0 (now)))
                       (do ((i 0 (+ i 1))) ((= i n-durable)) (out d 'job i bv))
                       (let ((secs (- (now) t0)))
                         (do ((i 0 (+ i 1))) ((= i n-durable)) (in d 'job i ?bytes))
                         (/ n-durable secs)))))))
