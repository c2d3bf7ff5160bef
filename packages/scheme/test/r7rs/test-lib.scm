;;; The conformance suite's test library, included by every section file:
;;;
;;;   (test-group "4.2.1 Conditionals")   names the checks that follow (in failure reports)
;;;   (test expected expr)                 expr's value is expected's (see %same? below)
;;;   (test-values (values a ...) expr)    expr returns exactly these values
;;;   (test-error expr)                    evaluating expr raises something
;;;   (test-error-who who (irritant ...) expr)
;;;                                        expr raises an error object whose
;;;                                        (error-object-who e) is the symbol who and whose
;;;                                        irritants include every irritant listed
;;;   (test-xfail "bug" expected expr)     a known bug outside the runtime library (the
;;;                                        compiler or engine): the check must fail; when it
;;;                                        starts passing, the runner says so and fails, so
;;;                                        that the mark is removed
;;;   (test-summary)                       the results, as the file's last expression
;;;
;;; Values are compared with equal?, except that numbers (also inside lists and vectors)
;;; must have the same exactness and inexact ones may differ in the last digits (relative
;;; difference below 1e-10), so a test can be written with the 13 digits R7RS prints.
;;; The check's result and any exception it raises are caught, so one failing check never
;;; stops the file. The runner (../r7rs.test.js) reads the summary:
;;;   #(passed ((status group index expr expected-kind expected actual-kind actual) ...))
;;; where status is fail, xfail or xpass and a kind is value or raised.

(define %passed 0)
(define %index 0)
(define %group "")
(define %results '())

(define (test-group name) (set! %group name))

(define (%number-close? a b)
  (cond ((not (eq? (exact? a) (exact? b))) #f)
        ((exact? a) (= a b))
        ((or (nan? a) (nan? b)) (and (nan? a) (nan? b)))
        ((or (infinite? a) (infinite? b)) (= a b))
        ((not (and (real? a) (real? b))) (= a b))
        (else (<= (abs (- a b)) (* 1e-10 (max (abs a) (abs b)))))))

;; equal?, with close numbers; a budget of visited nodes keeps cyclic data finite
(define (%same? a b)
  (let ((budget 100000))
    (let walk ((a a) (b b))
      (set! budget (- budget 1))
      (cond ((< budget 0) (equal? a b))
            ((and (number? a) (number? b)) (%number-close? a b))
            ((and (pair? a) (pair? b))
             (and (walk (car a) (car b)) (walk (cdr a) (cdr b))))
            ((and (vector? a) (vector? b))
             (and (= (vector-length a) (vector-length b))
                  (walk (vector->list a) (vector->list b))))
            (else (equal? a b))))))

;; (value . v) or (raised . condition)
(define (%outcome thunk)
  (guard (e (#t (cons 'raised e)))
    (cons 'value (thunk))))

(define (%outcome-values thunk)
  (guard (e (#t (cons 'raised e)))
    (cons 'value (call-with-values thunk list))))

(define (%record! ok? bug expr expected actual)
  (set! %index (+ %index 1))
  (cond ((and ok? (not bug)) (set! %passed (+ %passed 1)))
        (else
         (set! %results
               (cons (list (cond ((not bug) 'fail) (ok? 'xpass) (else 'xfail))
                           %group %index expr
                           (car expected) (cdr expected) (car actual) (cdr actual)
                           bug)
                     %results)))))

(define (%check expr expected-thunk thunk bug)
  (let ((expected (%outcome expected-thunk))
        (actual (%outcome thunk)))
    (%record! (and (eq? (car expected) 'value) (eq? (car actual) 'value)
                   (%same? (cdr expected) (cdr actual)))
              bug expr expected actual)))

(define (%check-values expr expected-thunk thunk bug)
  (let ((expected (%outcome-values expected-thunk))
        (actual (%outcome-values thunk)))
    (%record! (and (eq? (car expected) 'value) (eq? (car actual) 'value)
                   (%same? (cdr expected) (cdr actual)))
              bug expr expected actual)))

(define (%irritants-included? wanted got)
  (let loop ((w wanted))
    (or (null? w)
        (and (member (car w) got) (loop (cdr w))))))

(define (%check-error expr thunk who irritants bug)
  (let ((actual (%outcome thunk)))
    (%record! (and (eq? (car actual) 'raised)
                   (or (not who)
                       (let ((e (cdr actual)))
                         (and (error-object? e)
                              (eq? (error-object-who e) who)
                              (%irritants-included? irritants (error-object-irritants e))))))
              bug expr
              (cons 'value (if who (list 'error-from who 'with-irritants irritants) 'an-exception))
              actual)))

(define-syntax test
  (syntax-rules ()
    ((_ expected expr) (%check 'expr (lambda () expected) (lambda () expr) #f))))

(define-syntax test-xfail
  (syntax-rules ()
    ((_ bug expected expr) (%check 'expr (lambda () expected) (lambda () expr) bug))))

(define-syntax test-values
  (syntax-rules ()
    ((_ expected expr) (%check-values 'expr (lambda () expected) (lambda () expr) #f))))

(define-syntax test-error
  (syntax-rules ()
    ((_ expr) (%check-error 'expr (lambda () expr) #f '() #f))))

(define-syntax test-error-who
  (syntax-rules ()
    ((_ who (irritant ...) expr)
     (%check-error 'expr (lambda () expr) 'who (list irritant ...) #f))))

(define (test-summary)
  (vector %passed (reverse %results)))
