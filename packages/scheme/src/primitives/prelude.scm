;;; The prelude: the part of the runtime library written in Scheme. Every procedure
;;; that calls a procedure it was given (map, for-each, dynamic-wind, call/cc, raise,
;;; guard, parameterize, sorting, ...) is here, compiled by our own compiler when the
;;; runtime boots (engine/boot.js), so every continuation captured inside any of them
;;; is data: no JavaScript closure ever sits in a continuation, and a process can be
;;; serialized and moved at any point. Its top-level definitions go to the runtime
;;; namespace 'rt'.
;;;
;;; Invariants: a procedure here that takes a procedure calls it only from Scheme; a
;;; definition here is a runtime definition (boot.js moves the unit's own globals to
;;; 'rt'). The text is part of the precompiled runtime's context digest, so a change to
;;; it makes browser workers compile the prelude themselves until the daemon's bundle is
;;; rebuilt.
;;;
;;; Control primitives it builds on (JS, see engine/builtins.js): %capture (the
;;; continuation of its caller's caller), %reinstate, %uncaught, %exit, apply; and the
;;; dynamic-state primitives of primitives/prims-control.js.

;;; ------------------------------------------------------------ argument checks
;; Errors name the procedure and the offending argument, as the JS primitives' do
;; (%error throws like a primitive, so the error carries the caller's location).
(define (%check-procedure who f)
  (if (not (procedure? f)) (%error 'type who "expected a procedure" f)))

(define (%check-vectors who vs)
  (if (pair? vs)
      (if (vector? (car vs))
          (%check-vectors who (cdr vs))
          (%error 'type who "expected a vector" (car vs)))))

(define (%check-strings who ss)
  (if (pair? ss)
      (if (string? (car ss))
          (%check-strings who (cdr ss))
          (%error 'type who "expected a string" (car ss)))))

;; After a walk over several lists stopped: each tail must be a pair (a longer list) or ().
(define (%check-list-ends who tails lists)
  (if (pair? tails)
      (if (or (pair? (car tails)) (null? (car tails)))
          (%check-list-ends who (cdr tails) (cdr lists))
          (%error 'type who "expected a list" (car lists)))))

;;; ------------------------------------------------------------ multiple values
(define (call-with-values producer consumer)
  (%check-procedure 'call-with-values producer)
  (%check-procedure 'call-with-values consumer)
  (let ((v (producer)))
    (if (%values? v) (apply consumer (%values->list v)) (consumer v))))

;;; ------------------------------------------------------------ continuations
;; A raw continuation is #(frames winders handlers params); the procedure made from it
;; runs the dynamic-wind transitions, then reinstates the frames and the dynamic state.
(define (call-with-current-continuation f)
  (%check-procedure 'call-with-current-continuation f)
  (f (%make-continuation (%capture))))
(define call/cc call-with-current-continuation)

(define (%make-continuation raw)
  (lambda vals (%throw raw vals)))

(define (%throw raw vals)
  (%rewind-to (vector-ref raw 1))
  (%reinstate raw (if (and (pair? vals) (null? (cdr vals))) (car vals) (apply values vals))))

(define (dynamic-wind before thunk after)
  (%check-procedure 'dynamic-wind before)
  (%check-procedure 'dynamic-wind thunk)
  (%check-procedure 'dynamic-wind after)
  (before)
  (%set-winders! (cons (cons before after) (%winders)))
  (call-with-values thunk
    (lambda results
      (%set-winders! (cdr (%winders)))
      (after)
      (apply values results))))

(define (%common-tail x y)
  (let ((lx (length x)) (ly (length y)))
    (let loop ((x (if (> lx ly) (list-tail x (- lx ly)) x))
               (y (if (> ly lx) (list-tail y (- ly lx)) y)))
      (if (eq? x y) x (loop (cdr x) (cdr y))))))

(define (%rewind-to target)
  (let* ((current (%winders))
         (common (%common-tail current target)))
    (let unwind ((ws current))
      (if (not (eq? ws common))
          (begin
            (%set-winders! (cdr ws))
            ((cdr (car ws)))
            (unwind (cdr ws)))))
    (let rewind ((ws target))
      (if (not (eq? ws common))
          (begin
            (rewind (cdr ws))
            ((car (car ws)))
            (%set-winders! ws))))))

;;; ------------------------------------------------------------ exceptions
;; The handler stack holds procedures, or (%resume . procedure) for Termite's
;; handle, whose handler's value is returned from raise.
(define (%resumable? h) (and (pair? h) (eq? (car h) '%resume)))
(define (%handler-proc h) (if (%resumable? h) (cdr h) h))

(define (with-exception-handler handler thunk)
  (%check-procedure 'with-exception-handler handler)
  (%check-procedure 'with-exception-handler thunk)
  (let ((old (%handlers)))
    (%set-handlers! (cons handler old))
    (call-with-values thunk
      (lambda results (%set-handlers! old) (apply values results)))))

(define (raise obj)
  (let ((hs (%handlers)))
    (if (null? hs)
        (%uncaught obj)
        (let ((h (car hs)))
          (%set-handlers! (cdr hs))
          (if (%resumable? h)
              (let ((v ((cdr h) obj)))
                (%set-handlers! hs)
                v)
              (begin
                (h obj)
                (%set-handlers! (cdr hs))
                (raise (%make-error "handler returned from a non-continuable exception"
                                    (list obj) 'non-continuable 'raise))))))))

(define (raise-continuable obj)
  (let ((hs (%handlers)))
    (if (null? hs)
        (%uncaught obj)
        (begin
          (%set-handlers! (cdr hs))
          (call-with-values (lambda () ((%handler-proc (car hs)) obj))
            (lambda results (%set-handlers! hs) (apply values results)))))))

;; Errors signalled by primitives: their JS frames are gone, so no handler may resume them.
(define (%raise-from-primitive obj)
  (let ((hs (%handlers)))
    (if (null? hs)
        (%uncaught obj)
        (begin
          (%set-handlers! (cdr hs))
          ((%handler-proc (car hs)) obj)
          (%set-handlers! (cdr hs))
          (raise (%make-error "handler returned from an error signalled by a primitive"
                              (list obj) 'non-continuable 'raise))))))

(define (%guard thunk handler)
  ((call/cc
     (lambda (guard-k)
       (with-exception-handler
        (lambda (condition)
          ((call/cc
             (lambda (handler-k)
               (guard-k
                (lambda ()
                  (handler condition
                           (lambda ()
                             (handler-k (lambda () (raise-continuable condition)))))))))))
        (lambda ()
          (call-with-values thunk
            (lambda args (lambda () (apply values args))))))))))

;; Termite: catch resumes where the handler was installed, handle where the
;; exception was raised.
(define (%catch handler thunk)
  (%guard thunk (lambda (condition reraise) (handler condition))))

(define (%handle handler thunk)
  (let ((old (%handlers)))
    (%set-handlers! (cons (cons '%resume handler) old))
    (call-with-values thunk
      (lambda results (%set-handlers! old) (apply values results)))))

;;; ------------------------------------------------------------ parameters
(define (make-parameter value . converter)
  (if (pair? converter) (%check-procedure 'make-parameter (car converter)))
  (if (pair? converter)
      (%make-parameter ((car converter) value) (car converter))
      (%make-parameter value #f)))

(define (%parameterize params vals thunk)
  (let* ((converted
          (let loop ((ps params) (vs vals) (acc '()))
            (if (null? ps)
                (reverse acc)
                (let ((c (%parameter-converter (car ps))))
                  (loop (cdr ps) (cdr vs) (cons (if c (c (car vs)) (car vs)) acc))))))
         (new (%params-extend (%params) params converted))
         (old #f))
    (dynamic-wind
     (lambda () (set! old (%params)) (%set-params! new))
     thunk
     (lambda () (%set-params! old)))))

;;; ------------------------------------------------------------ promises (R7RS 7.3)
(define-record-type promise
  (%make-promise-box box)
  promise?
  (box %promise-box %set-promise-box!))

(define (%delay-force thunk) (%make-promise-box (list #f thunk)))
(define (%delay thunk) (%delay-force (lambda () (make-promise (thunk)))))
(define (make-promise obj)
  (if (promise? obj) obj (%make-promise-box (list #t obj))))

(define (force promise)
  (if (not (promise? promise))
      promise
      (let ((b (%promise-box promise)))
        (if (car b)
            (cadr b)
            (let ((promise* ((cadr b))))
              (if (not (car (%promise-box promise)))
                  (%promise-update! promise* promise))
              (force promise))))))

(define (%promise-update! new old)
  (set-car! (%promise-box old) (car (%promise-box new)))
  (set-car! (cdr (%promise-box old)) (cadr (%promise-box new)))
  (%set-promise-box! new (%promise-box old)))

;;; ------------------------------------------------------------ lists
(define (%all-pairs? ls)
  (or (null? ls) (and (pair? (car ls)) (%all-pairs? (cdr ls)))))

(define (%cars ls) (if (null? ls) '() (cons (car (car ls)) (%cars (cdr ls)))))
(define (%cdrs ls) (if (null? ls) '() (cons (cdr (car ls)) (%cdrs (cdr ls)))))

(define (map f l . ls)
  (%check-procedure 'map f)
  (if (null? ls)
      (let loop ((x l) (acc '()))
        (if (pair? x)
            (loop (cdr x) (cons (f (car x)) acc))
            (if (null? x) (reverse acc) (%error 'type 'map "expected a list" l))))
      (let loop ((xs (cons l ls)) (acc '()))
        (if (%all-pairs? xs)
            (loop (%cdrs xs) (cons (apply f (%cars xs)) acc))
            (begin (%check-list-ends 'map xs (cons l ls)) (reverse acc))))))

(define (for-each f l . ls)
  (%check-procedure 'for-each f)
  (if (null? ls)
      (let loop ((x l))
        (if (pair? x)
            (begin (f (car x)) (loop (cdr x)))
            (if (not (null? x)) (%error 'type 'for-each "expected a list" l))))
      (let loop ((xs (cons l ls)))
        (if (%all-pairs? xs)
            (begin (apply f (%cars xs)) (loop (%cdrs xs)))
            (%check-list-ends 'for-each xs (cons l ls)))))
  (if #f #f))

(define (member x l . compare)
  (if (null? compare)
      (%member x l)
      (let ((eq (car compare)))
        (%check-procedure 'member eq)
        (let loop ((ls l))
          (cond ((pair? ls) (if (eq x (car ls)) ls (loop (cdr ls))))
                ((null? ls) #f)
                (else (%error 'type 'member "expected a list" l)))))))

(define (assoc x l . compare)
  (if (null? compare)
      (%assoc x l)
      (let ((eq (car compare)))
        (%check-procedure 'assoc eq)
        (let loop ((ls l))
          (cond ((and (pair? ls) (pair? (car ls)))
                 (if (eq x (car (car ls))) (car ls) (loop (cdr ls))))
                ((null? ls) #f)
                ((pair? ls) (%error 'type 'assoc "expected an association list (a list of pairs)" l))
                (else (%error 'type 'assoc "expected a list" l)))))))

;;; ------------------------------------------------------------ vectors and strings
(define (vector-map f v . vs)
  (%check-procedure 'vector-map f)
  (%check-vectors 'vector-map (cons v vs))
  (if (null? vs)
      (let ((n (vector-length v)))
        (let loop ((i 0) (acc '()))
          (if (< i n)
              (loop (+ i 1) (cons (f (vector-ref v i)) acc))
              (list->vector (reverse acc)))))
      (list->vector (apply map f (vector->list v) (map vector->list vs)))))

(define (vector-for-each f v . vs)
  (%check-procedure 'vector-for-each f)
  (%check-vectors 'vector-for-each (cons v vs))
  (if (null? vs)
      (let ((n (vector-length v)))
        (let loop ((i 0))
          (if (< i n) (begin (f (vector-ref v i)) (loop (+ i 1))))))
      (apply for-each f (vector->list v) (map vector->list vs)))
  (if #f #f))

(define (string-map f s . ss)
  (%check-procedure 'string-map f)
  (%check-strings 'string-map (cons s ss))
  (let ((chars (apply map f (string->list s) (map string->list ss))))
    (for-each (lambda (c) (if (not (char? c)) (%error 'type 'string-map "expected the procedure to return characters" c)))
              chars)
    (list->string chars)))

(define (string-for-each f s . ss)
  (%check-procedure 'string-for-each f)
  (%check-strings 'string-for-each (cons s ss))
  (apply for-each f (string->list s) (map string->list ss)))

;;; ------------------------------------------------------------ sorting (SRFI 132 order)
(define (%merge less? a b)
  (let loop ((a a) (b b) (acc '()))
    (cond ((null? a) (append (reverse acc) b))
          ((null? b) (append (reverse acc) a))
          ((less? (car b) (car a)) (loop a (cdr b) (cons (car b) acc)))
          (else (loop (cdr a) b (cons (car a) acc))))))

(define (list-sort less? l)
  (%check-procedure 'list-sort less?)
  (if (not (list? l)) (%error 'type 'list-sort "expected a list" l))
  (let sort ((l l) (n (length l)))
    (if (< n 2)
        (if (= n 0) '() (list (car l)))
        (let ((h (quotient n 2)))
          (%merge less? (sort l h) (sort (list-tail l h) (- n h)))))))

(define (sort l less?)
  (if (vector? l) (vector-sort less? l) (list-sort less? l)))

(define (vector-sort less? v)
  (%check-procedure 'vector-sort less?)
  (%check-vectors 'vector-sort (list v))
  (list->vector (list-sort less? (vector->list v))))

;;; ------------------------------------------------------------ ports
(define (call-with-port port proc)
  (if (not (port? port)) (%error 'type 'call-with-port "expected a port" port))
  (%check-procedure 'call-with-port proc)
  (call-with-values (lambda () (proc port))
    (lambda results (close-port port) (apply values results))))

(define (call-with-input-file file proc)
  (call-with-port (open-input-file file) proc))

(define (call-with-output-file file proc)
  (call-with-port (open-output-file file) proc))

(define (with-input-from-file file thunk)
  (let ((port (open-input-file file)))
    (call-with-values
        (lambda () (%parameterize (list current-input-port) (list port) thunk))
      (lambda results (close-port port) (apply values results)))))

(define (with-output-to-file file thunk)
  (let ((port (open-output-file file)))
    (call-with-values
        (lambda () (%parameterize (list current-output-port) (list port) thunk))
      (lambda results (close-port port) (apply values results)))))

;;; ------------------------------------------------------------ eval and load
;; The top-level thunks of the units eval or load compiled (libraries first), in order.
(define (%run-thunks thunks)
  (if (null? (cdr thunks))
      ((car thunks))
      (begin ((car thunks)) (%run-thunks (cdr thunks)))))

;;; ------------------------------------------------------------ leaving
(define (exit . code)
  (%rewind-to '())
  (%exit (if (pair? code) (car code) #t)))

(define (emergency-exit . code)
  (%exit (if (pair? code) (car code) #t)))
