;;; Wa-Tor (MESSENGERS, Figure 14): fish and sharks on a toroidal ocean
;;;
;;; The ocean is striped along y into logical nodes (one per stripe, spread over the
;;; physical nodes this program can reach); a stripe's cells are its node variable
;;; `cells`. Every fish and shark is a messenger. Each chronon, every creature acts once,
;;; in the order of the cells they start it in: the creature in cell i acts at virtual
;;; time chronon × cells + i (sched-time-abs), so the conservative global virtual time
;;; runs them one at a time, in the same order as the sequential program below — which
;;; is how the run is checked: the two oceans must be the same at the end. A creature
;;; that moves to another stripe hops there; a newborn is injected where its parent was.
;;; Rules (Dewdney, 1984): a shark eats a neighbouring fish if it can, else moves to an
;;; empty neighbour, as a fish does; both breed after enough chronons; a shark starves.
;;;
;;;   termite-node run examples/messengers/wator.scm [--join ws://HOST:PORT]

(define W 10) (define H 8) (define stripes 4) (define rows (quotient H stripes))
(define WH (* W H))
(define chronons 6)
(define fish-breed 3) (define shark-breed 5) (define shark-start 3) (define fish-food 3)

(define (mix c i) (modulo (+ (* c 7919) (* i 104729) 17) 1000003))
(define (neighbours i)
  (let ((x (modulo i W)) (y (quotient i W)))
    (list (+ (* (modulo (- y 1) H) W) x) (+ (* y W) (modulo (+ x 1) W))
          (+ (* (modulo (+ y 1) H) W) x) (+ (* y W) (modulo (- x 1) W)))))
(define (only ok? xs) (cond ((null? xs) '()) ((ok? (car xs)) (cons (car xs) (only ok? (cdr xs)))) (else (only ok? (cdr xs)))))

;; Where the creature of kind in cell i goes in chronon c (a cell, or #f); look: cell → #f, fish or shark.
(define (decide kind c i look)
  (let ((fish (only (lambda (j) (eq? (look j) 'fish)) (neighbours i)))
        (empty (only (lambda (j) (not (look j))) (neighbours i))))
    (cond ((and (eq? kind 'shark) (pair? fish)) (list-ref fish (modulo (mix c i) (length fish))))
          ((pair? empty) (list-ref empty (modulo (mix c i) (length empty))))
          (else #f))))

(define (initial-kind i)
  (let ((h (mix 0 i))) (cond ((= (modulo h 4) 0) 'fish) ((= (modulo h 13) 1) 'shark) (else #f))))
(define (breed-age kind) (if (eq? kind 'fish) fish-breed shark-breed))

;;; ------------------------------------------------------------ sequentially
;; grid: cell → #f or #(kind age energy last-chronon-acted)
(define (sequential)
  (let ((grid (make-vector WH #f)))
    (do ((i 0 (+ i 1))) ((= i WH))
      (let ((k (initial-kind i))) (when k (vector-set! grid i (vector k 0 shark-start -1)))))
    (do ((c 0 (+ c 1))) ((= c chronons))
      (do ((i 0 (+ i 1))) ((= i WH))
        (let ((cr (vector-ref grid i)))
          (when (and cr (< (vector-ref cr 3) c))
            (let* ((kind (vector-ref cr 0))
                   (look (lambda (j) (let ((o (vector-ref grid j))) (and o (vector-ref o 0)))))
                   (target (decide kind c i look))
                   (ate (and target (eq? (look target) 'fish)))
                   (age (+ (vector-ref cr 1) 1))
                   (born (and target (>= age (breed-age kind))))
                   (energy (if (eq? kind 'shark) (- (+ (vector-ref cr 2) (if ate fish-food 0)) 1) 0))
                   (at (or target i)))
              (when target (vector-set! grid i (and born (vector kind 0 shark-start c))))
              (vector-set! grid at (vector kind (if born 0 age) energy c))
              (when (and (eq? kind 'shark) (<= energy 0)) (vector-set! grid at #f)))))))
    (vector-map (lambda (o) (and o (vector-ref o 0))) grid)))

;;; ------------------------------------------------------------ with messengers
(define physical (list->vector (cons (current-node) (guard (e (#t '())) (mesh-nodes)))))
(define (stripe-of i) (quotient (quotient i W) rows))
(define (slot i) (- i (* (stripe-of i) rows W)))

(define (creature addrs kind tag age energy i c)
  (when (< c chronons)
    (sched-time-abs (+ (* c WH) i))
    (let ((mine (vector-ref (node-ref 'cells) (slot i))))
      (when (and mine (equal? (cdr mine) tag))   ; else: eaten meanwhile
      (let* ((look (lambda (j)
                     (let ((o (if (= (stripe-of j) (stripe-of i))
                                  (vector-ref (node-ref 'cells) (slot j))
                                  (vector-ref (node-ref-at (vector-ref addrs (stripe-of j)) 'cells) (slot j)))))
                       (and o (car o)))))
             (target (decide kind c i look))
             (ate (and target (eq? (look target) 'fish)))
             (age (+ age 1))
             (born (and target (>= age (breed-age kind))))
             (child (and born (make-tag)))
             (energy (if (eq? kind 'shark) (- (+ energy (if ate fish-food 0)) 1) 0))
             (at (or target i)))
        (when target
          (put! i (and born (cons kind child)))
          (unless (= (stripe-of target) (stripe-of i)) (hop 'node (vector-ref addrs (stripe-of target))))
          (put! target (cons kind tag)))
        (when born
          (inject (lambda () (creature addrs kind child 0 shark-start i (+ c 1))) (vector-ref addrs (stripe-of i))))
        (if (and (eq? kind 'shark) (<= energy 0))
            (put! at #f)
            (creature addrs kind tag (if born 0 age) energy at (+ c 1))))))))

(define (put! i v) (node-update! 'cells (lambda (cells) (let ((new (vector-copy cells))) (vector-set! new (slot i) v) new))))

;; one stripe node per stripe, then each stripe's creatures, injected there
(define (setup main)
  (lambda ()
    (let ((addrs (make-vector stripes #f)))
      (do ((s 0 (+ s 1))) ((= s stripes))
        (create 'node (string->symbol (string-append "stripe" (number->string s))) 'link 'next
                'physical (vector-ref physical (modulo s (vector-length physical))))
        (vector-set! addrs s (current-lnode))
        (node-set! 'cells (make-vector (* rows W) #f)))
      (do ((i 0 (+ i 1))) ((= i WH))
        (let ((k (initial-kind i)))
          (when k
            (let ((tag (make-tag)))
              (unless (equal? (current-lnode) (vector-ref addrs (stripe-of i))) (hop 'node (vector-ref addrs (stripe-of i))))
              (put! i (cons k tag))
              (inject (lambda () (creature addrs k tag 0 shark-start i 0)))))))
      (! main (list 'ocean addrs)))))

(define me (self))
(inject-and-wait (setup me))      ; returns when every creature has lived its chronons
(define addrs (recv (('ocean a) a)))
(define ocean
  (let ((v (make-vector WH #f)))
    (do ((s 0 (+ s 1))) ((= s stripes) v)
      (let ((cells (node-ref-at (vector-ref addrs s) 'cells)))
        (do ((k 0 (+ k 1))) ((= k (* rows W)))
          (let ((o (vector-ref cells k))) (vector-set! v (+ (* s rows W) k) (and o (car o)))))))))
(define (count kind v) (let loop ((i 0) (n 0)) (if (= i WH) n (loop (+ i 1) (if (eq? (vector-ref v i) kind) (+ n 1) n)))))
(display (list 'ocean W 'x H 'in stripes 'stripes 'on (vector-length physical) 'physical 'nodes
               'after chronons 'chronons: (count 'fish ocean) 'fish (count 'shark ocean) 'sharks))
(newline)
(display (list 'same 'as 'sequential (equal? ocean (sequential)))) (newline)
