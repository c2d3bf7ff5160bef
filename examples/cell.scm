;;; A mutable cell as a process (Termite paper §4.6)
;;;
;;; Termite forbids sharing mutable data between processes. State lives in a
;;; process instead: the cell's content is the argument of its loop, and
;;; "mutation" is a message that makes the loop continue with a new value.

(define (make-cell content)
  (spawn
   (lambda ()
     (let loop ((content content))
       (recv
        ((from tag 'ref)
         (! from (list tag content))
         (loop content))
        (('set! content)
         (loop content))
        ;; an extension of the paper's cell: apply a procedure to the content.
        ;; The cell handles one message at a time, so this update is atomic.
        (('update! f)
         (loop (f content))))))))

(define (cell-ref cell)
  (!? cell 'ref))

(define (cell-set! cell value)
  (! cell (list 'set! value)))

(define (cell-update! cell f)
  (! cell (list 'update! f)))

(define c (make-cell 0))
(display (cell-ref c))            ; ⇒ 0
(newline)
(cell-set! c 42)
(display (cell-ref c))            ; ⇒ 42  (messages from one sender arrive in order)
(newline)

;; Any number of processes can share the cell: they share only its pid.
;; A hundred processes each add 1 with an update! message (a procedure travels
;; in the message). A read-then-set from each of them could lose updates;
;; update! cannot, because only the cell touches its content.
(define me (self))
(define (worker)
  (cell-update! c (lambda (n) (+ n 1)))
  (! me 'done))
(do ((i 0 (+ i 1))) ((= i 100)) (spawn worker))
(do ((i 0 (+ i 1))) ((= i 100)) (recv ('done #t)))
(display (cell-ref c))            ; ⇒ 142
(newline)
