;; The S/Net paper's matrix multiplication as a benchmark (bench/linda.js,
;; BENCHMARKS.md): a space made on the daemon at 127.0.0.1:HOLDER_PORT — central, or
;; distributed with KIND=distributed (then every worker reads A and B from its own
;; replica, and a task moves to the worker that takes it by ownership) — holds A's
;; rows, B's columns and one task per element (grain element: dim^2 tasks, each reads
;; one row and one column) or per row (grain row: dim tasks, each worker reads B's
;; columns once); n workers, one on each of the first n worker daemons (W1..W4 ports),
;; take tasks and out results. Prints "result linda.matmul[.distributed].<grain>.n<k> <round> <ms>":
;; the time from the first out of the input to the last result in, for k = 1, 2, 4,
;; ROUNDS timed rounds after a warm-up (N=k, GRAIN=g: only k workers, only grain g); the product is checked every run (an error
;; ends the program). Every loop is bounded by its count.
(define (env k d) (or (get-environment-variable k) d))
(define (port k) (string->number (env k "0")))
(define holder (make-node "127.0.0.1" (port "HOLDER_PORT")))
(define worker-nodes (map (lambda (k) (make-node "127.0.0.1" (port (string-append "W" (number->string k))))) '(1 2 3 4)))
(define rounds (string->number (env "ROUNDS" "3")))
(define kind (string->symbol (env "KIND" "central")))
(define figure (if (eq? kind 'distributed) "result linda.matmul.distributed." "result linda.matmul."))
(define dims (list (cons 'element (string->number (env "DIM_ELEMENT" "10")))
                   (cons (quote row) (string->number (env "DIM_ROW" "48")))))
(define (now) (/ (current-jiffy) (exact->inexact (jiffies-per-second))))
;; N and GRAIN (bench/linda-dts-counts.js) run one worker count and one grain
(define worker-counts (let ((n (get-environment-variable "N"))) (if n (list (string->number n)) '(1 2 4))))

(define (iota n) (let loop ((i (- n 1)) (acc '())) (if (< i 0) acc (loop (- i 1) (cons i acc)))))
(define (take l k) (if (= k 0) '() (cons (car l) (take (cdr l) (- k 1)))))
(define (vec dim f) (list->vector (map f (iota dim))))
(define (dot u v)
  (let loop ((k 0) (s 0)) (if (= k (vector-length u)) s (loop (+ k 1) (+ s (* (vector-ref u k) (vector-ref v k)))))))

(define (worker s dim grain)
  (lambda ()
    (let ((cols (if (eq? grain 'row) (vec dim (lambda (j) (caddr (rd s 'b j ?vector)))) #f)))
      (let loop ()
        (let ((k (cadr (in s 'task ?integer))))
          (if (>= k 0)
              (begin
                (if (eq? grain 'element)
                    (let ((i (quotient k dim)) (j (remainder k dim)))
                      (out s 'c k (dot (caddr (rd s 'a i ?vector)) (caddr (rd s 'b j ?vector)))))
                    (let ((row (caddr (rd s 'a k ?vector))))
                      (out s 'c k (vec dim (lambda (j) (dot row (vector-ref cols j)))))))
                (loop))))))))

;; One multiplication on a fresh space; the elapsed seconds.
(define run-serial 0)
(define (multiply grain dim nodes)
  (set! run-serial (+ run-serial 1))
  (let* ((name (string->symbol (string-append "matmul-" (symbol->string kind) "-" (number->string run-serial))))
         (s (if (eq? kind 'distributed) (on holder (lambda () (make-space name 'distributed))) (make-space name 'central holder)))
         (a (vec dim (lambda (i) (vec dim (lambda (j) (+ i j 1))))))
         (b (vec dim (lambda (j) (vec dim (lambda (i) (- (* 2 i) j)))))) ; B's columns
         (tasks (if (eq? grain 'element) (* dim dim) dim))
         (t0 (now)))
    (do ((i 0 (+ i 1))) ((= i dim)) (out s 'a i (vector-ref a i)) (out s 'b i (vector-ref b i)))
    (for-each (lambda (node) (remote-spawn node (worker s dim grain))) nodes)
    (do ((k 0 (+ k 1))) ((= k tasks)) (out s 'task k))
    (let ((c (map (lambda (k) (caddr (in s 'c k ?any))) (iota tasks)))
          (elapsed (- (now) t0)))
      (for-each (lambda (node) (out s 'task -1)) nodes)
      (let ((want (map (lambda (k)
                         (if (eq? grain 'element)
                             (dot (vector-ref a (quotient k dim)) (vector-ref b (remainder k dim)))
                             (vec dim (lambda (j) (dot (vector-ref a k) (vector-ref b j))))))
                       (iota tasks))))
        (if (not (equal? c want)) (error "matmul: wrong product" grain dim (length nodes))))
      elapsed)))

(for-each
 (lambda (g)
   (let ((grain (car g)) (dim (cdr g)))
     (for-each
      (lambda (n)
        (let ((nodes (take worker-nodes n)))
          (multiply grain dim nodes) ; warm-up
          (do ((r 1 (+ r 1))) ((> r rounds))
            (display figure) (display grain) (display ".n") (display n)
            (display " ") (display r) (display " ") (display (* 1000 (multiply grain dim nodes))) (newline))))
      worker-counts)))
 (let ((g (get-environment-variable "GRAIN"))) (if g (list (assq (string->symbol g) dims)) dims)))
