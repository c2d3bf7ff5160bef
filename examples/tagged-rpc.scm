;;; Remote procedure call with tags (Termite paper §4.5)
;;;
;;; A request carries the caller's pid and a fresh tag; the reply carries the tag
;;; back, so the caller can tell which reply answers which request even when
;;; several are in flight or a third party answers.

(define rpc-server
  (spawn
   (lambda ()
     (let loop ()
       (recv
        ((from tag ('add a b))
         (! from (list tag (+ a b)))))
       (loop)))))

;; By hand: make a tag, send (pid tag request), wait for (tag reply).
;; In a pattern, ,tag matches the value of the variable tag (here, by equal?),
;; where a plain identifier would bind anything.
(display
 (let ((tag (make-tag)))
   (! rpc-server (list (self) tag (list 'add 21 21)))
   (recv
    ;; note the reference to tag in the current lexical scope
    ((,tag reply) reply))))                       ; ⇒ 42
(newline)

;; !? does exactly that.
(display (!? rpc-server (list 'add 21 21)))       ; ⇒ 42
(newline)

;; Replies are matched by tag, not by order: two requests in flight, answered
;; in the opposite order by a third process, still pair up correctly.
(define slow-adder
  (spawn
   (lambda ()
     (let* ((first (?)) (second (?)))
       (for-each (lambda (m)
                   (let ((from (car m)) (tag (cadr m)) (args (caddr m)))
                     (! from (list tag (apply + args)))))
                 (list second first))))))
(define t1 (make-tag))
(define t2 (make-tag))
(! slow-adder (list (self) t1 '(1 2)))
(! slow-adder (list (self) t2 '(10 20)))
(display (list (recv ((,t1 r) r)) (recv ((,t2 r) r))))   ; ⇒ (3 30)
(newline)

;; !? takes a timeout (seconds) and a default, like ? and ??.
(define silent (spawn (lambda () (?))))           ; takes one message, never answers
(display (!? silent 'hello 0.05 'no-answer))      ; ⇒ no-answer
(newline)
