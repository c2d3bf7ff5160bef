;;; Selective message retrieval (Termite paper §4.2)
;;;
;;; `?` takes the oldest message of the mailbox. `??` takes the oldest message
;;; that satisfies a predicate; the messages it skips stay in the mailbox, in
;;; their order, for later receives.

(! (self) 1)
(! (self) 2)
(! (self) 3)

(define a (?))          ; ⇒ 1   the oldest message
(define b (?? odd?))    ; ⇒ 3   2 is skipped, not removed
(define c (?))          ; ⇒ 2   still there
(display (list a b c))
(newline)

;; recv is selective too: it takes the oldest message that matches one of its
;; patterns. Here the (urgent ...) message is taken first although it arrived
;; last; the two (normal ...) messages wait, in order.
(! (self) '(normal 1))
(! (self) '(normal 2))
(! (self) '(urgent 3))
(display (recv (('urgent n) (list 'urgent n))))   ; ⇒ (urgent 3)
(newline)
(display (list (?) (?)))                          ; ⇒ ((normal 1) (normal 2))
(newline)

;; Timeouts (§4.4): every receive takes an optional timeout in seconds and a
;; default. Without a default, a timeout raises the symbol timeout.
(display (? 0.05 'nothing-came))                               ; ⇒ nothing-came
(newline)
(display (catch (lambda (e) (list 'raised e)) (?? odd? 0.05)))  ; ⇒ (raised timeout)
(newline)
;; recv's last clause can be (after seconds body ...)
(display (recv (x x) (after 0.05 'after-clause)))              ; ⇒ after-clause
(newline)
