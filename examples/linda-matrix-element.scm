;;; Matrix multiplication in Linda, one element per task
;;; (Carriero and Gelernter, "The S/Net's Linda Kernel", 1986, §2)
;;;
;;; The processes never talk to each other: they share three distributed data
;;; structures in the tuple space.
;;;   the input matrices   ("A" i "row" #(...)) and ("B" j "col" #(...)),
;;;                        read by every worker at once (rd leaves them there);
;;;   the task counter     ("Dot" next dim "A" "B" "C"), the next element to compute;
;;;   the product          ("C" i j value), one tuple per element.
;;; A worker takes the "Dot" tuple with in (so only one worker sees each value of
;;; next), puts it back incremented, and computes element next. Any number of
;;; workers gives the same result.
;;;
;;; Run with WORKERS=n in the environment to choose the number of workers.

(define workers
  (let ((n (get-environment-variable "WORKERS")))
    (if n (string->number n) 4)))
(define dim 6)

;;; The input matrices (vectors of rows) and helpers.
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

;;; A worker, as in the paper:
;;;   in("Dot", var NextElem, var dim, var mat1, var mat2, var prod);
;;;   if (NextElem < dim*dim) out("Dot", NextElem + 1, dim, mat1, mat2, prod);
;;;   read(mat1, i, var row); read(mat2, j, var col);
;;;   out(prod, i, j, DotProduct(row, col));
;;; Formals (?integer, ?string, ?vector) match any field of their type; the
;;; tuple comes back as a list, which match takes apart.
(define (worker)
  (let loop ()
    (match (in "Dot" ?integer ?integer ?string ?string ?string)
      ((_ next dim mat1 mat2 prod)
       (if (< next (* dim dim))
           (out "Dot" (+ next 1) dim mat1 mat2 prod))
       (let ((i (+ (quotient (- next 1) dim) 1))
             (j (+ (remainder (- next 1) dim) 1)))
         (let ((row (cadddr (rd mat1 i "row" ?vector)))    ; the 4th field
               (col (cadddr (rd mat2 j "col" ?vector))))
           (out prod i j (dot-product row col))))))
    ;; After the last element the "Dot" tuple is not put back: the workers
    ;; block in in for ever. The program ends when the main process returns.
    (loop)))

;;; Initialization: dump A's rows and B's columns into the tuple space, start
;;; the workers, then drop in the "Dot" tuple that sets them going.
(do ((i 1 (+ i 1))) ((> i dim))
  (out "A" i "row" (row-of A i))
  (out "B" i "col" (col-of B i)))
(do ((w 0 (+ w 1))) ((= w workers))
  (spawn worker))
(out "Dot" 1 dim "A" "B" "C")

;;; Cleanup: reel in the product elements, in order.
(define C
  (make-matrix (lambda (i j)
                 (match (in "C" i j ?integer)
                   ((_ _ _ value) value)))))

;;; Print the product and check it against a sequential multiplication.
(vector-for-each (lambda (row) (display row) (newline)) C)
(define expected (make-matrix (lambda (i j) (dot-product (row-of A i) (col-of B j)))))
(display (if (equal? C expected) "C = A x B: correct" "C = A x B: WRONG"))
(newline)
(display (list 'tuples-left-of-C (tuple-count "C" ?any ?any ?any)))   ; ⇒ 0
(newline)
