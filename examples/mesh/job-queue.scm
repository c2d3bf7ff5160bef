;; A job queue that survives its daemon's restart: the queue is a durable central
;; tuple space (docs/linda.md, "Durable central spaces") on a daemon started with
;; --data, so jobs submitted before a kill -9 are still there after the restart.
;;
;;   termite-node --port 7400 --token T --data /tmp/queue        (the queue's daemon)
;;   JOB_STEP=submit termite-node run examples/mesh/job-queue.scm --join ws://127.0.0.1:7400 --token T
;;   (kill -9 the daemon, start it again with the same --data)
;;   JOB_STEP=work termite-node run examples/mesh/job-queue.scm --join ws://127.0.0.1:7400 --token T
;;
;; JOB_STEP=submit puts JOBS jobs (default 20) into the queue; JOB_STEP=work starts
;; WORKERS workers (default 3), each taking jobs with `in` until the queue is empty,
;; and collects one result per job. Run both steps in one go with JOB_STEP=all.

(define queue-node (make-node "127.0.0.1" (string->number (or (get-environment-variable "QUEUE_PORT") "7400"))))
(define step (or (get-environment-variable "JOB_STEP") "all"))
(define jobs (string->number (or (get-environment-variable "JOBS") "20")))
(define workers (string->number (or (get-environment-variable "WORKERS") "3")))

;; the queue: made on the daemon, or the one already there (after a restart, with its jobs)
(define queue (make-space 'job-queue 'central queue-node))

;; a job is ("job" i n): compute the sum of the squares of 1..n
(define (submit)
  (do ((i 1 (+ i 1))) ((> i jobs))
    (out queue "job" i (* i 100)))
  ;; an out to another node's space is asynchronous: a later operation of this node
  ;; on the space is served after it, so this count confirms every job is queued
  (display (list 'queued (space-count queue "job" ?integer ?integer)))
  (newline))

(define (sum-of-squares n)
  (let loop ((k 1) (acc 0)) (if (> k n) acc (loop (+ k 1) (+ acc (* k k))))))

;; a worker takes jobs until none is left; each result goes back into the queue's space
(define (worker me)
  (let loop ((done 0))
    (let ((job (inp queue "job" ?integer ?integer)))
      (if job
          (let ((i (cadr job)) (n (caddr job)))
            (out queue "result" i (sum-of-squares n))
            (loop (+ done 1)))
          (! me (list 'worker-done done))))))

(define (work)
  (let ((me (self)))
    (do ((w 0 (+ w 1))) ((= w workers)) (spawn (lambda () (worker me))))
    (do ((w 0 (+ w 1))) ((= w workers)) (recv (('worker-done _) #t))))
  ;; one result per job, each right
  (let loop ((i 1) (ok #t))
    (if (> i jobs)
        (begin (display (list 'results jobs 'correct ok)) (newline))
        (let ((r (in-timeout 10 #f queue "result" i ?integer)))
          (loop (+ i 1) (and ok r (= (caddr r) (sum-of-squares (* i 100)))))))))

(cond ((string=? step "submit") (submit))
      ((string=? step "work") (work))
      (else (submit) (work)))
