;;; R7RS 6.11 Exceptions
(include "test-lib.scm")

(define (output-of thunk)
  (let ((p (open-output-string)))
    (parameterize ((current-output-port p)) (thunk))
    (get-output-string p)))

(test-group "6.11 with-exception-handler and raise (R7RS examples)")
(test 'exception
      (call-with-current-continuation
       (lambda (k)
         (with-exception-handler
          (lambda (e) (k 'exception))
          (lambda () (+ 1 (raise 'an-error)))))))
(test "condition: an-error\n"
      (output-of
       (lambda ()
         (call-with-current-continuation
          (lambda (k)
            (with-exception-handler
             (lambda (e) (display "condition: ") (write e) (newline) (k 'exception))
             (lambda () (+ 1 (raise 'an-error)))))))))
;; a handler that returns from raise: a secondary exception in the handler's dynamic environment
(test "something went wrong\n"
      (output-of
       (lambda ()
         (guard (e (#t 'secondary))
           (with-exception-handler
            (lambda (e) (display "something went wrong\n"))
            (lambda () (+ 1 (raise 'an-error))))))))
(test 'secondary
      (guard (e (#t 'secondary))
        (with-exception-handler
         (lambda (e) 'ignored)
         (lambda () (+ 1 (raise 'an-error))))))
(test 65 (with-exception-handler
          (lambda (con)
            (cond ((string? con) 'display-it) (else 'warning))
            42)
          (lambda () (+ (raise-continuable "should be a number") 23))))
(test "should be a number"
      (output-of
       (lambda ()
         (with-exception-handler
          (lambda (con) (cond ((string? con) (display con)) (else (display "a warning has been issued"))) 42)
          (lambda () (+ (raise-continuable "should be a number") 23))))))

(test-group "6.11 Handler stack")
;; the handler runs with the outer handlers installed
(test '(inner outer)
      (let ((seen '()))
        (guard (e (#t (reverse (cons e seen))))
          (with-exception-handler
           (lambda (e) (set! seen (cons 'inner seen)) (raise 'outer))
           (lambda () (raise 'first))))))
(test 'outer-handled
      (with-exception-handler
       (lambda (e) 'outer-handled)
       (lambda ()
         (with-exception-handler
          (lambda (e) (raise-continuable (list 'from-inner e)))
          (lambda () (raise-continuable 'x))))))
(test '(from-inner x)
      (with-exception-handler
       (lambda (e) e)
       (lambda ()
         (with-exception-handler
          (lambda (e) (raise-continuable (list 'from-inner e)))
          (lambda () (raise-continuable 'x))))))
;; after with-exception-handler returns, its handler is no longer installed
(test 'outer
      (with-exception-handler
       (lambda (e) 'outer)
       (lambda ()
         (with-exception-handler (lambda (e) 'inner) (lambda () 'done))
         (raise-continuable 'x))))
(test 3 (with-exception-handler (lambda (e) 0) (lambda () 3)))
(test '(1 2) (call-with-values (lambda () (with-exception-handler (lambda (e) 0) (lambda () (values 1 2)))) list))
(test 11 (with-exception-handler (lambda (e) (* e 2)) (lambda () (+ 1 (raise-continuable 5)))))
(test '(a b) (with-exception-handler
              (lambda (e) (if (eq? e 'first) 'a 'b))
              (lambda () (list (raise-continuable 'first) (raise-continuable 'second)))))
;; escaping from a handler with a continuation restores the handler stack
(test 'restored
      (with-exception-handler
       (lambda (e) 'restored)
       (lambda ()
         (call/cc (lambda (k) (with-exception-handler (lambda (e) (k 'escaped)) (lambda () (raise 'x)))))
         (raise-continuable 'y))))
(test-error (with-exception-handler 5 (lambda () 1)))
(test-error-who with-exception-handler (5) (with-exception-handler 5 (lambda () 1)))
(test-error-who with-exception-handler ('x) (with-exception-handler (lambda (e) e) 'x))
;; any object can be raised
(test 42 (guard (e (#t e)) (raise 42)))
(test '(a list) (guard (e (#t e)) (raise '(a list))))
(test #f (guard (e (#t e)) (raise #f)))
(test "str" (guard (e ((string? e) e)) (raise "str")))
;; uncaught raise inside a guard body with no matching clause re-raises to the outer guard
(test 'outer-guard (guard (e ((eq? e 'x) 'outer-guard)) (guard (e ((eq? e 'y) 'inner)) (raise 'x))))

(test-group "6.11 Errors signalled by primitives")
(test #t (guard (e (#t (error-object? e))) (car 5)))
(test "expected a pair" (guard (e (#t (error-object-message e))) (car 5)))
(test '(5) (guard (e (#t (error-object-irritants e))) (car 5)))
(test 'car (guard (e (#t (error-object-who e))) (car 5)))
(test 'vector-ref (guard (e (#t (error-object-who e))) (vector-ref (vector 1 2) 10)))
(test #t (guard (e (#t (and (member 10 (error-object-irritants e)) #t))) (vector-ref (vector 1 2) 10)))
(test '+ (guard (e (#t (error-object-who e))) (+ 1 "2")))
(test #f (guard (e (#t (error-object-who e))) (error "plain")))
(test 'caught (with-exception-handler
               (lambda (e) 'ignored)
               (lambda () (guard (e ((error-object? e) 'caught)) (vector-ref (vector) 0)))))
;; errors signalled by primitives are not continuable: a handler that returns causes a
;; secondary error (docs/scheme.md)
(test-error (with-exception-handler (lambda (e) 42) (lambda () (+ (car 5) 1))))
(test #t (guard (e (#t (error-object? e)))
           (with-exception-handler (lambda (e) 42) (lambda () (+ (car 5) 1)))))
(test 'escaped (call/cc (lambda (k) (with-exception-handler (lambda (e) (k 'escaped)) (lambda () (car 5))))))
(test 'arity (guard (e (#t 'arity)) ((lambda (x) x))))
(test-error-who string-ref (5) (string-ref "abc" 5))

(test-group "6.11 error and error objects")
(define (null-list? l)
  (cond ((pair? l) #f)
        ((null? l) #t)
        (else (error "null-list?: argument out of domain" l))))
(test #t (null-list? '()))
(test #f (null-list? '(1)))
(test "null-list?: argument out of domain" (guard (e (#t (error-object-message e))) (null-list? 5)))
(test '(5) (guard (e (#t (error-object-irritants e))) (null-list? 5)))
(test #t (error-object? (guard (exn (else exn)) (error "BOOM!" 1 2 3))))
(test "BOOM!" (error-object-message (guard (exn (else exn)) (error "BOOM!" 1 2 3))))
(test '(1 2 3) (error-object-irritants (guard (exn (else exn)) (error "BOOM!" 1 2 3))))
(test '() (error-object-irritants (guard (exn (else exn)) (error "no irritants"))))
(test #f (error-object? 'symbol))
(test #f (error-object? "string"))
(test #f (error-object? (list 'a)))
(test #t (error-object? (guard (e (#t e)) (raise (guard (e2 (#t e2)) (error "x"))))))
(test-error (error-object-message 'not-an-error))
(test-error-who error-object-message ('x) (error-object-message 'x))
(test-error-who error-object-irritants (5) (error-object-irritants 5))
(test '(a "b" #\c) (guard (e (#t (error-object-irritants e))) (error "msg" 'a "b" #\c)))
(test #f (file-error? (guard (exn (else exn)) (error "BOOM!"))))
(test #t (file-error? (guard (exn (else exn)) (open-input-file " no such file "))))
(test #f (read-error? (guard (exn (else exn)) (error "BOOM!"))))
(test #t (read-error? (guard (exn (else exn)) (read (open-input-string ")")))))
(test #t (read-error? (guard (exn (else exn)) (read (open-input-string "(1 2")))))
(test #t (read-error? (guard (exn (else exn)) (read (open-input-string "#<foo>")))))
(test #f (read-error? 'x))
(test #f (file-error? 'x))
(test #f (read-error? (guard (exn (else exn)) (car 1))))
(test #f (file-error? (guard (exn (else exn)) (car 1))))
(test #t (error-object? (guard (exn (else exn)) (open-input-file " no such file "))))
(test 'open-input-file (guard (exn (else (error-object-who exn))) (open-input-file " no such file ")))
(test '(" no such file ") (guard (exn (else (error-object-irritants exn))) (open-input-file " no such file ")))
(define (make-error-like) (guard (e (#t e)) (error "made" 1)))
(test #t (error-object? (guard (exn (else exn)) (raise (make-error-like)))))
(test "made" (guard (e (#t (error-object-message e))) (raise (make-error-like))))
;; raise-continuable with error objects
(test 10 (with-exception-handler
          (lambda (e) (if (error-object? e) 10 0))
          (lambda () (raise-continuable (make-error-like)))))

(test-summary)
