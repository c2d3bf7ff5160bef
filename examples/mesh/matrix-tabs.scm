;; Linda matrix multiplication across the mesh, row granularity (S/Net paper), the
;; workers running on the other nodes (worker tabs) and reaching this node's space.
;;
;; The coordinator outs A's rows, B, and one task per row into a central space it holds; a
;; worker on each other node takes a task, reads the row and B, computes
;; the row of C and outs it. Workers are linked to the coordinator: if a node goes away
;; in the middle (a tab is closed), the coordinator puts that worker's rows back and the
;; product is still right.
;;   termite-node run examples/mesh/matrix-tabs.scm --join ws://127.0.0.1:7400 --token T
;; MATRIX_ON=all puts a worker on every other node, daemons and tabs alike.
;; MATRIX_N sets the size (default 24); MATRIX_ROW_DELAY (seconds, default 0) makes each
;; worker hold each task that long, to watch the work on the dashboard or close a tab
;; in the middle of it.
(define n (string->number (or (get-environment-variable "MATRIX_N") "24")))
(define row-delay (string->number (or (get-environment-variable "MATRIX_ROW_DELAY") "0")))
;; MATRIX_KIND=distributed: a distributed space instead, replicated at every worker's node
(define space (make-space 'matrix (if (equal? (get-environment-variable "MATRIX_KIND") "distributed") 'distributed 'central)))

(define (make-matrix f) (let rows ((i 0) (acc '())) (if (= i n) (reverse acc)
  (rows (+ i 1) (cons (list->vector (let cols ((j 0) (r '())) (if (= j n) (reverse r) (cols (+ j 1) (cons (f i j) r))))) acc)))))
(define a (make-matrix (lambda (i j) (+ i j 1))))
(define b (make-matrix (lambda (i j) (- (* 2 i) j))))

(define (dot row b j)
  (let loop ((k 0) (sum 0)) (if (= k n) sum (loop (+ k 1) (+ sum (* (vector-ref row k) (vector-ref (list-ref b k) j)))))))
(define (row-times row b) (list->vector (let cols ((j 0) (r '())) (if (= j n) (reverse r) (cols (+ j 1) (cons (dot row b j) r))))))

(define (worker space)
  (lambda ()
    (let ((b (cadr (rd space 'b ?list))))
      (let loop ()
        (let* ((task (in space 'task ?integer))
               (i (cadr task)))
          (if (>= i 0)
              (begin
                (if (> row-delay 0) (sleep row-delay))
                (out space 'c i (row-times (caddr (rd space 'a i ?vector)) b))
                (loop))))))))

(let fill ((i 0) (rows a)) (if (< i n) (begin (out space 'a i (car rows)) (fill (+ i 1) (cdr rows)))))
(out space 'b b)
(let tasks ((i 0)) (if (< i n) (begin (out space 'task i) (tasks (+ i 1)))))

;; The workers: the tabs in the mesh if there are any (and MATRIX_ON is not all),
;; otherwise every other node.
;; MATRIX_WORKERS=k first waits (at most 20 s) until the mesh holds k candidates.
(define wanted (string->number (or (get-environment-variable "MATRIX_WORKERS") "1")))
(define (tabs-among nodes)
  (let loop ((ns nodes) (acc '()))
    (cond ((null? ns) (reverse acc))
          ((eq? (on (car ns) (lambda () (node-kind))) 'tab) (loop (cdr ns) (cons (car ns) acc)))
          (else (loop (cdr ns) acc)))))
(define on-all (equal? (get-environment-variable "MATRIX_ON") "all"))
(define (candidates)
  (let* ((all (mesh-nodes)) (tabs (if on-all '() (tabs-among all))))
    (if (null? tabs) all tabs)))
(define nodes
  (let wait ((tries 0))
    (let ((ns (candidates)))
      (if (or (>= (length ns) wanted) (> tries 100)) ns (begin (sleep 0.2) (wait (+ tries 1)))))))
(define workers
  (map (lambda (node) (remote-spawn-link node (worker space))) (if (null? nodes) (list (current-node)) nodes)))

;; rows with a result (a row may be computed twice if its worker's node went away
;; after computing it: both results are equal)
(define (rows-done)
  (let loop ((i 0) (k 0)) (if (= i n) k (loop (+ i 1) (if (rdp space 'c i ?vector) (+ k 1) k)))))

(define reissued 0)
(define (wait-results)
  (let loop ((reported 0))
    (let ((count (rows-done)))
      (if (> count reported) (begin (display (list 'rows-done count)) (newline)))
      (if (< count n)
          (begin
            (catch (lambda (e)
                     ;; a worker died: re-issue every row without a result that no live task covers
                     (let again ((i 0))
                       (if (< i n)
                           (begin
                             (if (and (not (rdp space 'c i ?vector)) (not (rdp space 'task i)))
                                 (begin (out space 'task i) (set! reissued (+ reissued 1))))
                             (again (+ i 1))))))
                   (? 0.05 'tick))
            (loop count))))))

(wait-results)
(define c (let rows ((i 0) (acc '())) (if (= i n) (reverse acc) (rows (+ i 1) (cons (caddr (in space 'c i ?vector)) acc)))))
(let stop ((k 0)) (if (< k (length workers)) (begin (out space 'task -1) (stop (+ k 1)))))
(define expected (map (lambda (row) (row-times row b)) a))
(display (list 'rows n 'workers (length workers) 'reissued reissued 'product-correct (equal? c expected)))
(newline)
