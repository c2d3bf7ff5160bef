%% Ping-pong (BENCHMARKS.md): round trips per second of a small message between
%% two processes, on one node (local/1) or across two nodes (two_node/2).
%%
%%   erl -noshell -run pingpong main Count Warmup Rounds
%% prints "result pingpong.local <round> <round trips per second>" per timed round.
-module(pingpong).
-export([main/1, local/3, two_node/4, pong/0]).

main([CountS, WarmS, RoundsS]) ->
    try
        local(list_to_integer(CountS), list_to_integer(WarmS), list_to_integer(RoundsS)),
        halt(0)
    catch C:E:St ->
            io:format(standard_error, "pingpong failed: ~p:~p ~p~n", [C, E, St]),
            halt(1)
    end.

local(Count, Warm, Rounds) ->
    Pong = spawn(?MODULE, pong, []),
    rounds("pingpong.local", Pong, Count, Warm, Rounds),
    Pong ! stop.

%% The pong process on node Peer (spawned there; the peer has this module's path).
two_node(Peer, Count, Warm, Rounds) ->
    Pong = spawn(Peer, ?MODULE, pong, []),
    rounds("pingpong.2node", Pong, Count, Warm, Rounds),
    Pong ! stop.

rounds(Name, Pong, Count, Warm, Rounds) ->
    [ping(Pong, Count) || _ <- lists:seq(1, Warm)],
    lists:foreach(
      fun(R) ->
              T0 = erlang:monotonic_time(microsecond),
              ping(Pong, Count),
              T1 = erlang:monotonic_time(microsecond),
              io:format("result ~s ~b ~.1f~n", [Name, R, Count * 1.0e6 / (T1 - T0)])
      end, lists:seq(1, Rounds)).

ping(_, 0) -> ok;
ping(Pong, N) ->
    Pong ! {self(), N},
    receive N -> ping(Pong, N - 1) end.

pong() ->
    receive
        {From, N} -> From ! N, pong();
        stop -> ok
    end.
