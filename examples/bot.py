"""A complete pbem bot (docs/bots.md): standard library only, plays every game it is in.

    PBEM_URL=https://pbem.example PBEM_BOT_TOKEN=pbot_... python bot.py

It accepts each invitation, makes a random legal move on each turn (preferring a sale,
then any take of goods), and stops when every game it played has ended (``--forever``:
never). Events come by long polling; ``/api/bot/stream`` gives the same as SSE.
"""

import json
import os
import random
import sys
import time
import urllib.error
import urllib.request

URL = os.environ.get("PBEM_URL", "http://127.0.0.1:5000").rstrip("/")
TOKEN = os.environ["PBEM_BOT_TOKEN"]


def call(path, body=None):
    """GET (no body) or POST (a JSON body) with the bot's token; the JSON answer."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        URL + path, data=data, method="GET" if body is None else "POST"
    )
    request.add_header("Authorization", "Bearer " + TOKEN)
    request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as refused:  # 409: the game moved on; 429: wait a little
        print("refused:", refused.code, refused.read().decode()[:200], file=sys.stderr)
        time.sleep(int(refused.headers.get("Retry-After") or 0))
        return None


def choose(moves):
    sales = [m for m in moves if m.startswith("sell")]
    return random.choice(sales or moves)


def main():
    after, playing, ended = "", set(), set()
    while True:
        answer = call(f"/api/bot/events?wait=25&after={after}") or {"events": [], "last": after}
        after = answer["last"]
        for event in answer["events"]:
            game = event["game"]
            if event["type"] == "invited":
                call(f"/api/bot/games/{game}/accept", {"entropy": os.urandom(32).hex()})
            elif event["type"] == "turn":
                playing.add(game)
                legal = call(f"/api/bot/games/{game}/legal-moves")["moves"]
                if legal:
                    call(f"/api/bot/games/{game}/moves", {"n": event["n"], "move": choose(legal)})
            elif event["type"] == "over":
                ended.add(game)
                print("game over:", game, flush=True)
        if playing and playing <= ended and "--forever" not in sys.argv:
            return


if __name__ == "__main__":
    main()
