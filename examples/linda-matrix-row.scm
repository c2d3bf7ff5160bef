;;; Matrix multiplication in Linda, one row per task
;;; (Carriero and Gelernter, "The S/Net's Linda Kernel", 1986, §5)
;;;
;;; The coarser-grained version of linda-matrix-element.scm: a task is a whole
;;; row of the product, so there are dim tasks instead of dim², and a worker
;;; takes the "Dot" tuple dim times less often. The paper measured it twice as
;;; fast as the element version on the S/Net. The product rows come out in
;;; order, in the right form to feed a further multiplication.
;;;
;;; Run with WORKERS=n in the environment to choose the number of workers.

(define workers
  (let ((n (get-environment-variable "WORKERS")))
    (if n (string->number n) 4)))
(define dim 6)

(define (make-matrix f)                ; f: (i j) → element, i and j from 1
  (let ((m (make-vector dim)))
    (do ((i 1 (+ i 1))) ((> i dim) m)
      (let ((row (make-vector dim)))
        (do ((j 1 (+ j 1))) ((> j dim))
          (vector-set! row (- j 1) (f i j)))
        (vector-set! m (- i 1) row)))))
(define (row-of m i) (vector-ref m (- i 1)))
(define (col-of m j) (vector-map (lambda (row) (vector-ref row (- j 1))) m))
(define (dot-product u v)
  (let loop ((k 0) (sum 0))
    (if (= k (vector-length u)) sum (loop (+ k 1) (+ sum (* (vector-ref u k) (vector-ref v k)))))))

(define A (make-matrix (lambda (i j) (+ i j))))
(define B (make-matrix (lambda (i j) (- (* i j) 3))))

;;; A worker: take the next row index, put the counter back, compute the whole
;;; row i of the product from row i of A and every column of B.
(define (worker)
  (let loop ()
    (match (in "Dot" ?integer ?integer ?string ?string ?string)
      ((_ i dim mat1 mat2 prod)
       (if (< i dim)
           (out "Dot" (+ i 1) dim mat1 mat2 prod))
       (let ((row (cadddr (rd mat1 i "row" ?vector)))
             (result (make-vector dim)))
         (do ((j 1 (+ j 1))) ((> j dim))
           (let ((col (cadddr (rd mat2 j "col" ?vector))))
             (vector-set! result (- j 1) (dot-product row col))))
         (out prod i "row" result))))
    (loop)))

;;; Initialization: A's rows and B's columns, the workers, the "Dot" tuple.
(do ((i 1 (+ i 1))) ((> i dim))
  (out "A" i "row" (row-of A i))
  (out "B" i "col" (col-of B i)))
(do ((w 0 (+ w 1))) ((= w workers))
  (spawn worker))
(out "Dot" 1 dim "A" "B" "C")

;;; Cleanup: reel in the product rows, in order.
(define C
  (let ((m (make-vector dim)))
    (do ((i 1 (+ i 1))) ((> i dim) m)
      (vector-set! m (- i 1) (cadddr (in "C" i "row" ?vector))))))

(vector-for-each (lambda (row) (display row) (newline)) C)
(define expected (make-matrix (lambda (i j) (dot-product (row-of A i) (col-of B j)))))
(display (if (equal? C expected) "C = A x B: correct" "C = A x B: WRONG"))
(newline)
