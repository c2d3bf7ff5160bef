%% Stream (BENCHMARKS.md): Count messages of 16 bytes sent one way to a process on the
%% other node, then one acknowledgement back once the last has arrived; messages per
%% second from the first send to the acknowledgement. The same program as the
%% "stream" group of bench/programs/mesh.scm.
-module(stream).
-export([run/4, sink/2]).

run(Peer, Count, Warm, Rounds) ->
    Bin = <<0:128>>,
    [trip(Peer, Bin, Count) || _ <- lists:seq(1, Warm)],
    lists:foreach(
      fun(R) ->
              T0 = erlang:monotonic_time(microsecond),
              trip(Peer, Bin, Count),
              T1 = erlang:monotonic_time(microsecond),
              io:format("result stream.2node ~b ~.1f~n", [R, Count * 1.0e6 / (T1 - T0)])
      end, lists:seq(1, Rounds)).

trip(Peer, Bin, Count) ->
    Sink = spawn(Peer, ?MODULE, sink, [self(), Count]),
    send(Sink, Bin, Count),
    receive
        {Sink, done} -> ok
    after 60000 -> error(no_ack)
    end.

send(_, _, 0) -> ok;
send(Sink, Bin, N) -> Sink ! Bin, send(Sink, Bin, N - 1).

sink(From, 0) -> From ! {self(), done};
sink(From, N) ->
    receive
        _ -> sink(From, N - 1)
    end.
