;;; Divide-and-conquer convex hull (MESSENGERS, Figure 13)
;;;
;;; A messenger injected at the root of a binary tree of logical nodes holds a set of
;;; points sorted by x. While the set is large it forks twice: one copy creates the left
;;; child and carries the left half there, the other the right child and the right half
;;; (the system places each new node: this physical node or one reachable from it, the
;;; least used), and the original waits at its node for two hulls in the node's mailbox.
;;; A leaf computes its hull; each hull is carried back up by a messenger jumping to its
;;; parent, where the two are merged. The hull at the root is checked against the same
;;; hull computed sequentially.
;;;
;;;   termite-node run examples/messengers/convex-hull.scm [--join ws://HOST:PORT]

(define point-count 2000)
(define leaf-size 150)

;; deterministic points: a linear congruential generator, coordinates in [0, 10000)
(define (points n)
  (let loop ((i 0) (seed 12345) (acc '()))
    (if (= i n)
        acc
        (let* ((s1 (modulo (+ (* seed 1103515245) 12345) 2147483648))
               (s2 (modulo (+ (* s1 1103515245) 12345) 2147483648)))
          (loop (+ i 1) s2 (cons (cons (modulo s1 10000) (modulo s2 10000)) acc))))))

(define (point<? p q) (or (< (car p) (car q)) (and (= (car p) (car q)) (< (cdr p) (cdr q)))))
(define (cross o a b)
  (- (* (- (car a) (car o)) (- (cdr b) (cdr o))) (* (- (cdr a) (cdr o)) (- (car b) (car o)))))

;; Andrew's monotone chain: the hull's vertices, counter-clockwise from the lowest-leftmost
(define (hull pts)
  (let ((sorted (list-sort point<? pts)))
    (define (chain ps)
      (let loop ((ps ps) (stack '()))
        (cond ((null? ps) (cdr stack))
              ((and (pair? stack) (pair? (cdr stack)) (<= (cross (cadr stack) (car stack) (car ps)) 0))
               (loop ps (cdr stack)))
              (else (loop (cdr ps) (cons (car ps) stack))))))
    (if (< (length sorted) 3)
        sorted
        (append (reverse (chain sorted)) (reverse (chain (reverse sorted)))))))

(define (split-at xs n)
  (let loop ((xs xs) (n n) (left '()))
    (if (= n 0) (cons (reverse left) xs) (loop (cdr xs) (- n 1) (cons (car xs) left)))))

;; The messenger at a tree node with its points; reports the hull, and the physical
;; nodes the subtree ran on, to `report`.
(define (solve pts report)
  (if (<= (length pts) leaf-size)
      (report (hull pts) (list (node-id (current-node))))
      (let* ((halves (split-at pts (quotient (length pts) 2)))
             (here (current-lnode))
             (back (lambda (h used) (hop 'node here) (m-send here (list h used)))))
        (cond ((fork) (create 'node 'left 'link 'child) (solve (car halves) back))
              ((fork) (create 'node 'right 'link 'child) (solve (cdr halves) back))
              (else
               (let* ((a (m-recv)) (b (m-recv)))
                 (report (hull (append (car a) (car b)))
                         (union (cadr a) (union (cadr b) (list (node-id (current-node))))))))))))

(define (union xs ys) (if (null? xs) ys (union (cdr xs) (if (member (car xs) ys) ys (cons (car xs) ys)))))

(define all (list-sort point<? (points point-count)))
(define me (self))
(inject-and-wait (lambda () (solve all (lambda (h used) (! me (list 'hull h used))))))
(define-values (found used) (recv (('hull h used) (values h used))))
(display (list 'points point-count 'hull-vertices (length found) 'physical 'nodes (length used))) (newline)
(display (list 'same 'as 'sequential (equal? found (hull all)))) (newline)
