;;; Shortest paths on an N×N mesh of logical nodes (MESSENGERS, Figure 12)
;;;
;;; A builder messenger creates the mesh n0-0 … n(N-1)-(N-1), striping its columns over
;;; the physical nodes it can reach (this one alone with `termite-node run`; this one
;;; and the daemons with `--join`). Then one messenger injected at n0-0 replicates along
;;; every link: at each node it keeps the shorter of its distance and the node's, and
;;; goes on only if it improved it. `inject-and-wait` returns when every copy has ended
;;; (termination detection), and the distances are checked against Dijkstra's algorithm
;;; run sequentially on the same weights.
;;;
;;;   termite-node run examples/messengers/shortest-path.scm
;;;   termite-node run examples/messengers/shortest-path.scm --join ws://127.0.0.1:7400

(define n 8)

;; deterministic weights 1..9: h joins (i,j)-(i,j+1), v joins (i,j)-(i+1,j)
(define (hw i j) (+ 1 (modulo (+ (* i 7) (* j 13) 3) 9)))
(define (vw i j) (+ 1 (modulo (+ (* i 11) (* j 5) 1) 9)))
(define (idx i j) (+ (* i n) j))
(define (cell-name i j) (string->symbol (string-append "n" (number->string i) "-" (number->string j))))

;; columns striped over the physical nodes
(define physical (list->vector (cons (current-node) (guard (e (#t (quote ()))) (mesh-nodes)))))
(define (place i j) (vector-ref physical (quotient (* j (vector-length physical)) n)))

;; The builder: row by row; each new node linked to its left neighbour by create, and
;; to the one above by create with that node's address (a link to an existing node).
(define (build main)
  (lambda ()
    (let ((addr (make-vector (* n n) #f)))
      (let row ((i 0))
        (when (< i n)
          (if (= i 0)
              (create 'node (cell-name 0 0) 'link 'start 'directed #t 'physical (place 0 0))
              (begin (hop 'node (vector-ref addr (idx (- i 1) 0)))
                     (create 'node (cell-name i 0) 'link 'v 'weight (vw (- i 1) 0) 'physical (place i 0))))
          (vector-set! addr (idx i 0) (current-lnode))
          (let col ((j 1))
            (when (< j n)
              (create 'node (cell-name i j) 'link 'h 'weight (hw i (- j 1)) 'physical (place i j))
              (vector-set! addr (idx i j) (current-lnode))
              (when (> i 0)
                (create 'node (vector-ref addr (idx (- i 1) j)) 'link 'v 'weight (vw (- i 1) j))
                (hop 'node (vector-ref addr (idx i j))))
              (col (+ j 1))))
          (row (+ i 1))))
      (! main (list 'mesh addr)))))

;; The paper's messenger: keep the shorter distance in node variable var, spread only
;; when it improved it.
(define (walker var d)
  (let ((old (node-update! var (lambda (cur) (if (and cur (<= cur d)) cur d)) #f)))
    (when (or (not old) (< d old))
      (hop)
      (walker var (+ d (last-weight))))))

;; Dijkstra's algorithm, sequentially, on the same weights.
(define (neighbours i j)
  (append (if (> j 0) (list (list i (- j 1) (hw i (- j 1)))) '())
          (if (< j (- n 1)) (list (list i (+ j 1) (hw i j))) '())
          (if (> i 0) (list (list (- i 1) j (vw (- i 1) j))) '())
          (if (< i (- n 1)) (list (list (+ i 1) j (vw i j))) '())))

(define (dijkstra)
  (let ((dist (make-vector (* n n) #f)) (done (make-vector (* n n) #f)))
    (vector-set! dist 0 0)
    (let loop ((k 0))
      (when (< k (* n n))
        (let pick ((c 0) (best #f))
          (cond ((< c (* n n))
                 (pick (+ c 1)
                       (if (and (not (vector-ref done c)) (vector-ref dist c)
                                (or (not best) (< (vector-ref dist c) (vector-ref dist best))))
                           c best)))
                (best
                 (vector-set! done best #t)
                 (for-each (lambda (nb)
                             (let ((t (idx (car nb) (cadr nb))) (d (+ (vector-ref dist best) (caddr nb))))
                               (when (or (not (vector-ref dist t)) (< d (vector-ref dist t)))
                                 (vector-set! dist t d))))
                           (neighbours (quotient best n) (remainder best n)))
                 (loop (+ k 1)))))))
    dist))

;;; ------------------------------------------------------------ run
(define me (self))
(inject-and-wait (build me))
(define addr (recv (('mesh a) a)))
(inject-and-wait (lambda () (walker 'dist 0)) (vector-ref addr 0))
(define found (vector-map (lambda (a) (node-ref-at a 'dist)) addr))
(define expected (dijkstra))
(display (list 'mesh n 'x n 'on (vector-length physical) 'physical 'nodes)) (newline)
(display (list 'distance 'to (cell-name (- n 1) (- n 1)) (vector-ref found (idx (- n 1) (- n 1))))) (newline)
(display (list 'same 'as 'sequential (equal? found expected))) (newline)
