%% The two-node benchmarks, run on node A against node B (both on this machine,
%% distribution over loopback TCP, a private epmd; started by run-erlang.js).
%%
%%   erl -name a@127.0.0.1 ... -run twonode main PeerNode Group...
%% Groups: pingpong, remote_spawn, payload1k, payload64k, stream. Prints "result <name>
%% <round> <value>" lines (see each module).
-module(twonode).
-export([main/1]).

main([PeerS | Groups]) ->
    Peer = list_to_atom(PeerS),
    try
        connect(Peer, 100),
        lists:foreach(fun(G) -> group(Peer, G) end, Groups),
        halt(0)
    catch C:E:St ->
            io:format(standard_error, "twonode failed: ~p:~p ~p~n", [C, E, St]),
            halt(1)
    end.

%% The peer may still be starting: try every 100 ms, at most Tries times.
connect(Peer, 0) -> error({cannot_connect, Peer});
connect(Peer, Tries) ->
    case net_kernel:connect_node(Peer) of
        true -> ok;
        _ -> timer:sleep(100), connect(Peer, Tries - 1)
    end.

group(Peer, "pingpong") -> pingpong:two_node(Peer, 20000, 1, 5);
group(Peer, "remote_spawn") -> remote_spawn:run(Peer, 2000, 500, 5);
group(Peer, "payload1k") -> payload:run(Peer, 1024, 10000, 1, 5);
group(Peer, "payload64k") -> payload:run(Peer, 65536, 3000, 1, 5);
group(Peer, "stream") -> stream:run(Peer, 1000000, 1, 3);
group(_, G) -> error({unknown_group, G}).
