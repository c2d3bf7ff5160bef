;;; R7RS 4.3 Macros
(include "test-lib.scm")

(test-group "4.3.1 Binding constructs for syntactic keywords")
(test 'now (let-syntax ((when (syntax-rules ()
                                 ((when test stmt1 stmt2 ...)
                                  (if test (begin stmt1 stmt2 ...))))))
             (let ((if #t))
               (when if (set! if 'now))
               if)))
(test 'outer (let ((x 'outer))
               (let-syntax ((m (syntax-rules () ((m) x))))
                 (let ((x 'inner))
                   (m)))))
(test 7 (letrec-syntax
            ((my-or (syntax-rules ()
                      ((my-or) #f)
                      ((my-or e) e)
                      ((my-or e1 e2 ...)
                       (let ((temp e1)) (if temp temp (my-or e2 ...)))))))
          (let ((x #f) (y 7) (temp 8) (let odd?) (if even?))
            (my-or x (let temp) (if y) y))))
(test 'let-syntax-body (let-syntax () 'let-syntax-body))
(test 2 (let-syntax ((one (syntax-rules () ((_) 1))))
          (let-syntax ((two (syntax-rules () ((_) (+ (one) (one))))))
            (two))))
;; let-syntax bindings are not visible in their own right-hand sides
(test 'outer-m (let-syntax ((m (syntax-rules () ((_) 'outer-m))))
                 (let-syntax ((m (syntax-rules () ((_) (m)))))
                   (m))))
(test 5 (letrec-syntax ((count-args (syntax-rules ()
                                      ((_) 0)
                                      ((_ x rest ...) (+ 1 (count-args rest ...))))))
          (count-args a b c d e)))
(test 'defined-in-let-syntax
      (let ()
        (let-syntax ((def (syntax-rules () ((_ n v) (define n v)))))
          (def local-name 'defined-in-let-syntax)
          local-name)))

(test-group "4.3.2 Pattern language")
(define-syntax swap!
  (syntax-rules ()
    ((_ a b) (let ((tmp a)) (set! a b) (set! b tmp)))))
(test '(2 1) (let ((x 1) (y 2)) (swap! x y) (list x y)))
(test '(2 1) (let ((tmp 1) (y 2)) (swap! tmp y) (list tmp y)))
(define-syntax my-if
  (syntax-rules (then else)
    ((_ c then t else e) (if c t e))))
(test 'yes (my-if #t then 'yes else 'no))
(test 'no (my-if #f then 'yes else 'no))
(test-error (eval '(let () (define-syntax my-if2 (syntax-rules (then) ((_ c then t) (if c t #f)))) (my-if2 #t than 1))
                  (environment '(scheme base))))
;; literals match by binding: a locally bound `then` is not the literal
(test 'no-match (let-syntax ((m (syntax-rules (then) ((_ then) 'literal) ((_ x) 'no-match))))
                  (let ((then 1)) (m then))))
(define-syntax ten (syntax-rules () ((_) 10)))
(test 10 (ten))
(define-syntax my-list (syntax-rules () ((_ x ...) (list x ...))))
(test '() (my-list))
(test '(1 2 3) (my-list 1 2 3))
(define-syntax nested
  (syntax-rules ()
    ((_ (a b ...) ...) '((a ...) (b ... ...)))))
(test '((1 4) (2 3 5 6)) (nested (1 2 3) (4 5 6)))
(define-syntax my-let*
  (syntax-rules ()
    ((_ () body ...) (let () body ...))
    ((_ ((x v) rest ...) body ...) (let ((x v)) (my-let* (rest ...) body ...)))))
(test 6 (my-let* ((a 1) (b (+ a 1)) (c (* b 3))) c))
(define-syntax tail-pattern
  (syntax-rules ()
    ((_ a ... b c) '(last-two b c before (a ...)))))
(test '(last-two 3 4 before (1 2)) (tail-pattern 1 2 3 4))
(test '(last-two 1 2 before ()) (tail-pattern 1 2))
(define-syntax dotted
  (syntax-rules ()
    ((_ a . rest) '(a rest))))
(test '(1 (2 3)) (dotted 1 2 3))
(test '(1 ()) (dotted 1))
(define-syntax dotted-ellipsis
  (syntax-rules ()
    ((_ a ... . r) '((a ...) r))))
(test '((1 2) 3) (dotted-ellipsis 1 2 . 3))
(test '((1 2) ()) (dotted-ellipsis 1 2))
(define-syntax vec-pattern
  (syntax-rules ()
    ((_ #(a b ...)) '(a (b ...)))))
(test '(1 (2 3)) (vec-pattern #(1 2 3)))
(test '(1 ()) (vec-pattern #(1)))
(define-syntax vec-tail
  (syntax-rules ()
    ((_ #(a ... z)) '(z a ...))))
(test '(3 1 2) (vec-tail #(1 2 3)))
(define-syntax vec-template
  (syntax-rules ()
    ((_ a ...) #(a ... end))))
(test #(1 2 end) (vec-template 1 2))
(define-syntax underscore
  (syntax-rules ()
    ((_ _ x _) 'x)))
(test 'middle (underscore a middle c))
(define-syntax datum-pattern
  (syntax-rules ()
    ((_ 1 x) 'one)
    ((_ "s" x) 'string)
    ((_ #\c x) 'char)
    ((_ #t x) 'true)
    ((_ y x) 'other)))
(test 'one (datum-pattern 1 z))
(test 'string (datum-pattern "s" z))
(test 'char (datum-pattern #\c z))
(test 'true (datum-pattern #t z))
(test 'other (datum-pattern 2 z))
(define-syntax first-match
  (syntax-rules ()
    ((_ (a b)) 'pair-of-two)
    ((_ (a ...)) 'list)
    ((_ a) 'atom)))
(test 'pair-of-two (first-match (1 2)))
(test 'list (first-match (1 2 3)))
(test 'list (first-match ()))
(test 'atom (first-match x))
(test-error (eval '(let () (define-syntax only-one (syntax-rules () ((_ a) a))) (only-one 1 2))
                  (environment '(scheme base))))
;; a custom ellipsis (R7RS 4.3.2)
(define-syntax my-list2
  (syntax-rules ::: ()
    ((_ x :::) (list x :::))))
(test '(1 2) (my-list2 1 2))
(define-syntax ellipsis-literal
  (syntax-rules ::: (...)
    ((_ ...) 'dots)
    ((_ x) 'other)))
(test 'dots (ellipsis-literal ...))
(test 'other (ellipsis-literal y))
;; (... ...) in a template stands for an ellipsis
(define-syntax be-like-begin
  (syntax-rules ()
    ((be-like-begin name)
     (define-syntax name
       (syntax-rules ()
         ((name expr (... ...))
          (begin expr (... ...))))))))
(be-like-begin sequence)
(test 4 (sequence 1 2 3 4))
(define-syntax quote-dots
  (syntax-rules ()
    ((_) '(... ...))))
(test '... (quote-dots))
(define-syntax escape-template
  (syntax-rules ()
    ((_ a) '(... (a ...)))))
(test '(1 ...) (escape-template 1))
;; nested ellipses of depth two and three
(define-syntax flatten2
  (syntax-rules ()
    ((_ ((x ...) ...)) '(x ... ...))))
(test '(1 2 3 4 5) (flatten2 ((1 2) (3) (4 5))))
(define-syntax depth3
  (syntax-rules ()
    ((_ (((x ...) ...) ...)) '((x ... ...) ...))))
(test '((1 2 3) (4)) (depth3 (((1 2) (3)) ((4)))))
(define-syntax pairs
  (syntax-rules ()
    ((_ (a b) ...) '((a . b) ...))))
(test '((1 . 2) (3 . 4)) (pairs (1 2) (3 4)))
(define-syntax zip-like
  (syntax-rules ()
    ((_ (a ...) (b ...)) '((a b) ...))))
(test '((1 x) (2 y)) (zip-like (1 2) (x y)))
;; a pattern variable used without its ellipsis depth in a template with one
(define-syntax with-constant
  (syntax-rules ()
    ((_ c (x ...)) '((c x) ...))))
(test '((k 1) (k 2)) (with-constant k (1 2)))

(test-group "4.3.2 Hygiene")
;; introduced bindings do not capture user identifiers
(define-syntax my-or2
  (syntax-rules ()
    ((_ a b) (let ((t a)) (if t t b)))))
(test 5 (let ((t 5)) (my-or2 #f t)))
;; free identifiers in templates refer to the binding where the macro was defined
(define-syntax call-list (syntax-rules () ((_ x ...) (list x ...))))
(test '(1 2) (let ((list vector)) (call-list 1 2)))
(test 'ok (let ((if list)) (my-if #t then 'ok else 'no)))
(define helper-value 'global-helper)
(define-syntax use-helper (syntax-rules () ((_) helper-value)))
(test 'global-helper (let ((helper-value 'local)) (use-helper)))
;; shadowing a macro keyword with a variable
(test 'var (let ((my-list (lambda args 'var))) (my-list 1 2)))
(test 3 (let ((swap! 3)) swap!))
;; a macro that expands into another macro's use
(define-syntax my-unless
  (syntax-rules () ((_ c body ...) (my-if c then #f else (begin body ...)))))
(test 'done (my-unless #f 'done))
;; a macro introducing a top-level definition and referring to it
(define-syntax define-getter
  (syntax-rules ()
    ((_ name value) (begin (define hidden value) (define (name) hidden)))))
(define-getter get-a 'a)
(define-getter get-b 'b)
(test '(a b) (list (get-a) (get-b)))
;; a macro defining a user-named variable
(define-syntax define-const (syntax-rules () ((_ n v) (define n v))))
(define-const the-const 99)
(test 99 the-const)
;; recursive macro producing nested lets, with the same temp name each level
(define-syntax my-let-values1
  (syntax-rules ()
    ((_ () body) body)
    ((_ ((x e) rest ...) body) (let ((tmp e)) (let ((x tmp)) (my-let-values1 (rest ...) body))))))
(test '(1 2 3) (my-let-values1 ((a 1) (b 2) (c 3)) (list a b c)))
;; the R7RS example with `=>` bound locally
(test 'ok (let ((=> #f)) (cond (#t => 'ok))))
;; a locally bound else is a variable (here #f), not cond's else
(test #t (eq? (if #f #f) (let ((else #f)) (cond (#f 'no) (else 'else-bound)))))
;; local macros in bodies
(test 6 (let ()
          (define-syntax double (syntax-rules () ((_ x) (* 2 x))))
          (double 3)))
(test 10 (let ()
           (define-syntax add-def (syntax-rules () ((_ n) (define n 10))))
           (add-def ten-local)
           ten-local))
(test '(1 2) (let ((x 1))
               (define-syntax get-x (syntax-rules () ((_) x)))
               (let ((x 2))
                 (list (get-x) x))))
;; a macro-generated loop variable does not clash with the user's
(define-syntax repeat
  (syntax-rules ()
    ((_ n body ...) (let loop ((i 0)) (when (< i n) body ... (loop (+ i 1)))))))
(test 3 (let ((i 0)) (repeat 3 (set! i (+ i 1))) i))
(define-syntax while
  (syntax-rules ()
    ((_ c body ...) (let lp () (when c body ... (lp))))))
(test 5 (let ((n 0)) (while (< n 5) (set! n (+ n 1))) n))
(define-syntax my-cond
  (syntax-rules (else)
    ((_ (else e)) e)
    ((_ (c e) clause ...) (if c e (my-cond clause ...)))))
(test 'b (my-cond (#f 'a) (#t 'b) (else 'c)))
(test 'c (my-cond (#f 'a) (#f 'b) (else 'c)))
;; a macro whose expansion quotes a pattern variable keeps the user's datum
(define-syntax quote-it (syntax-rules () ((_ x) 'x)))
(test '(a b) (quote-it (a b)))
(test 'if (quote-it if))

(test-group "4.3.3 Signaling errors in macro transformers")
(define-syntax must-be-pair
  (syntax-rules ()
    ((_ (a . b)) 'pair)
    ((_ x) (syntax-error "must-be-pair: expected a pair" x))))
(test 'pair (must-be-pair (1 . 2)))
(test-error (eval '(let () (define-syntax se (syntax-rules () ((_) (syntax-error "bad use")))) (se))
                  (environment '(scheme base))))
(define (string-contains? s sub)
  (let ((n (string-length s)) (k (string-length sub)))
    (let loop ((i 0))
      (cond ((> (+ i k) n) #f)
            ((string=? (substring s i (+ i k)) sub) #t)
            (else (loop (+ i 1)))))))
;; the message may carry a source location and the irritants too
(test #t
      (guard (e ((error-object? e) (string-contains? (error-object-message e) "simple-let: bad bindings")))
        (eval '(let ()
                 (define-syntax simple-let
                   (syntax-rules ()
                     ((_ (head ... ((x . y) val) . tail) body1 body2 ...)
                      (syntax-error "simple-let: bad bindings" (x . y)))
                     ((_ ((name val) ...) body1 body2 ...)
                      ((lambda (name ...) body1 body2 ...) val ...))))
                 (simple-let (((a . b) 1)) a))
              (environment '(scheme base)))))
(test 3 (let ()
          (define-syntax simple-let
            (syntax-rules ()
              ((_ (head ... ((x . y) val) . tail) body1 body2 ...)
               (syntax-error "simple-let: bad bindings" (x . y)))
              ((_ ((name val) ...) body1 body2 ...)
               ((lambda (name ...) body1 body2 ...) val ...))))
          (simple-let ((a 1) (b 2)) (+ a b))))

(test-summary)
