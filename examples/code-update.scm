;;; Dynamic code update (Termite paper §4.10)
;;;
;;; A running server gets new code without stopping: a corrected server is
;;; started beside it, asked for its continuation ('clone, as in
;;; process-cloning.scm), and the running server is told to continue with that
;;; continuation. The running server keeps its pid, so its clients are unaffected.
;;; The server must cooperate: it understands the 'update message.

(define server
  (spawn
   (lambda ()
     (let loop ()
       (recv
        (('update k)
         (k #t))
        ((from tag 'ping)
         (! from (list tag 'gnop))))     ; bug
       (loop)))))

(define new-server
  (spawn
   (lambda ()
     (let loop ()
       (recv
        (('update k)
         (k #t))
        ((from tag 'clone)
         (call/cc
          (lambda (k)
            (! from (list tag k)))))
        ((from tag 'ping)
         (! from (list tag 'pong))))     ; fixed
       (loop)))))

(display (!? server 'ping))              ; ⇒ gnop
(newline)

(let ((replacement (!? new-server 'clone)))
  (! server (list 'update replacement)))

(display (!? server 'ping))              ; ⇒ pong: same pid, new code
(newline)
