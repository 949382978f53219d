"""`devagent serve`: the full app in a browser through textual-serve, on 127.0.0.1, one shared session.

textual-serve starts a new app process per websocket and stops it when the page goes away; here one app
process (one agent, one session) outlives its pages: a second tab or a reloaded page attaches to it.
"""
