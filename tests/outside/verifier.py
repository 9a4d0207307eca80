"""An outside verifier of Jaipur game records, written from docs/record-format.md and
docs/rules.md alone (no import of pbem; the Python standard library only).

    python tests/outside/verifier.py FILE...

prints one line per file and exits 0 (every file holds), 1 (a check failed) or
2 (a file is not a record), the highest code of the files (record-format.md §5.1).

Where the documents left a choice open, the verifier's reading was marked "READING:"; each
has since been written into the docs, and the comments cite the section that settles it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

# ---------------------------------------------------------------------------------------
# The cards, the tokens (rules.md §1)

CARDS = ("diamond", "gold", "silver", "cloth", "spice", "leather", "camel")
GOODS = CARDS[:6]
ORDER = {card: i for i, card in enumerate(CARDS)}
PRECIOUS = frozenset({"diamond", "gold", "silver"})
GOODS_TOKENS = {
    "diamond": (7, 7, 5, 5, 5),
    "gold": (6, 6, 5, 5, 5),
    "silver": (5, 5, 5, 5, 5),
    "cloth": (5, 3, 3, 2, 2, 1, 1),
    "spice": (5, 3, 3, 2, 2, 1, 1),
    "leather": (4, 3, 2, 1, 1, 1, 1, 1, 1),
}
BONUS_PILES = {"3": (1, 1, 2, 2, 2, 3, 3), "4": (4, 4, 5, 5, 6, 6), "5": (8, 8, 9, 10, 10)}
DECK_CARDS = tuple(
    ["diamond"] * 6
    + ["gold"] * 6
    + ["silver"] * 6
    + ["cloth"] * 8
    + ["spice"] * 8
    + ["leather"] * 10
    + ["camel"] * 8
)
HAND_LIMIT = 7
CAMEL_TOKEN = 5

V1 = "jaipur-record/1"
V2 = "jaipur-record/2"
MAX_DEPTH = 64
MAX_INT_DIGITS = 20
MAX_NUMBER_CHARS = 40


def canonical(items) -> list[str]:
    return sorted(items, key=ORDER.__getitem__)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


# ---------------------------------------------------------------------------------------
# Seed, commitment, player entropy (§1) and randomness (§2)


def mix_seed(server_seed: bytes, contribution_0: bytes, contribution_1: bytes) -> bytes:
    msg = f"jaipur/1/mix:{contribution_0.hex()}:{contribution_1.hex()}"
    return hmac.new(server_seed, msg.encode("ascii"), hashlib.sha256).digest()


class Stream:
    """§2.1: HMAC-SHA256(seed, label + ":" + counter) blocks, read 8 bytes at a time."""

    def __init__(self, seed: bytes, label: str) -> None:
        self.seed = seed
        self.label = label
        self.counter = 0
        self.buffer = b""

    def block(self, counter: int) -> bytes:
        msg = f"{self.label}:{counter}".encode("ascii")
        return hmac.new(self.seed, msg, hashlib.sha256).digest()

    def read(self, size: int) -> bytes:
        while len(self.buffer) < size:
            self.buffer += self.block(self.counter)
            self.counter += 1
        out, self.buffer = self.buffer[:size], self.buffer[size:]
        return out

    def below(self, n: int) -> int:
        """§2.2, by rejection."""
        limit = 2**64 - (2**64 % n)
        while True:
            x = int.from_bytes(self.read(8), "big")
            if x < limit:
                return x % n


def shuffle(items, seed: bytes, label: str) -> list:
    """§2.3: Fisher-Yates, from the last index down; index 0 is the top."""
    out = list(items)
    stream = Stream(seed, label)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def drawn_first_player(seed: bytes) -> int:
    return Stream(seed, "jaipur/1/first-player").below(2)


# ---------------------------------------------------------------------------------------
# Move notation (§3)

MOVE_PATTERN = re.compile(
    r"^(?:take (?:diamond|gold|silver|cloth|spice|leather)|camels"
    r"|sell [1-7] (?:diamond|gold|silver|cloth|spice|leather)"
    r"|exchange (?=(?:[a-z]+ ){2,5}for(?: [a-z]+){2,5}$)"
    r"(?:diamond ){0,5}(?:gold ){0,5}(?:silver ){0,5}(?:cloth ){0,5}(?:spice ){0,5}"
    r"(?:leather ){0,5}"
    r"for(?: diamond){0,5}(?: gold){0,5}(?: silver){0,5}(?: cloth){0,5}(?: spice){0,5}"
    r"(?: leather){0,5}(?: camel){0,5}"
    r"|resign|timeout|claim)$(?!\n)"  # §3.2: the end of the text, not before a last \n
)


@dataclass(frozen=True)
class Move:
    kind: str  # take, camels, exchange, sell, resign, timeout, claim
    good: str | None = None
    count: int = 0
    taken: tuple[str, ...] = ()
    given: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.kind == "take":
            return f"take {self.good}"
        if self.kind == "sell":
            return f"sell {self.count} {self.good}"
        if self.kind == "exchange":
            return f"exchange {' '.join(self.taken)} for {' '.join(self.given)}"
        return self.kind


class Illegal(Exception):
    pass


def parse_move(text: str) -> Move:
    """A canonical move text (§3.1, §3.2); anything else is refused."""
    if not isinstance(text, str) or MOVE_PATTERN.fullmatch(text) is None:
        raise Illegal(f"not a canonical move: {text!r}")
    words = text.split(" ")
    if words[0] == "take":
        return Move("take", good=words[1])
    if words[0] == "sell":
        return Move("sell", good=words[2], count=int(words[1]))
    if words[0] == "exchange":
        cut = words.index("for")
        return Move("exchange", taken=tuple(words[1:cut]), given=tuple(words[cut + 1 :]))
    return Move(words[0])


# ---------------------------------------------------------------------------------------
# The rules (rules.md)


@dataclass
class Round:
    number: int
    starter: int
    hands: list[Counter]
    herds: list[int]
    market: Counter
    deck: list[str]
    discard: Counter
    tokens: dict[str, list[int]]
    bonus: dict[str, list[int]]
    goods_won: list[list[int]] = field(default_factory=lambda: [[], []])
    bonus_won: list[list[int]] = field(default_factory=lambda: [[], []])

    @classmethod
    def deal(cls, seed: bytes, number: int, starter: int) -> Round:
        """§2.5."""
        deck = shuffle(DECK_CARDS, seed, f"jaipur/1/round/{number}/deck")
        hands: list[Counter] = [Counter(), Counter()]
        herds = [0, 0]
        for seat, cards in ((starter, deck[0:5]), (1 - starter, deck[5:10])):
            for card in cards:
                if card == "camel":
                    herds[seat] += 1
                else:
                    hands[seat][card] += 1
        market = Counter({"camel": 3})
        market.update(deck[10:12])
        bonus = {
            size: shuffle(values, seed, f"jaipur/1/round/{number}/bonus{size}")
            for size, values in BONUS_PILES.items()
        }
        return cls(
            number=number,
            starter=starter,
            hands=hands,
            herds=herds,
            market=market,
            deck=deck[12:],
            discard=Counter(),
            tokens={good: list(values) for good, values in GOODS_TOKENS.items()},
            bonus=bonus,
        )

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat].values())

    def refill(self, count: int) -> bool:
        """Refill the market by ``count`` from the top of the deck; True when the deck
        had fewer cards than that (the round ends, rules.md §5)."""
        short = len(self.deck) < count
        drawn, self.deck = self.deck[:count], self.deck[count:]
        self.market.update(drawn)
        return short

    def score(self) -> dict:
        """rules.md §6."""
        camel = None
        if self.herds[0] != self.herds[1]:
            camel = 0 if self.herds[0] > self.herds[1] else 1
        scores = [
            sum(self.goods_won[s]) + sum(self.bonus_won[s]) + (CAMEL_TOKEN if camel == s else 0)
            for s in (0, 1)
        ]
        seal = None
        for key in (
            scores,
            [len(self.bonus_won[0]), len(self.bonus_won[1])],
            [len(self.goods_won[0]), len(self.goods_won[1])],
        ):
            if key[0] != key[1]:
                seal = 0 if key[0] > key[1] else 1
                break
        return {"round": self.number, "scores": scores, "camel_token": camel, "seal": seal}


def _remove(counter: Counter, cards) -> bool:
    need = Counter(cards)
    if any(counter[c] < k for c, k in need.items()):
        return False
    counter.subtract(need)
    for c in list(counter):
        if counter[c] <= 0:
            del counter[c]
    return True


class Match:
    """A match replayed from its seed: the rounds, the seals, resign/timeout/claim."""

    def __init__(self, seed: bytes, first_player: int | None) -> None:
        self.seed = seed
        starter = drawn_first_player(seed) if first_player is None else first_player
        self.round = Round.deal(seed, 1, starter)
        self.to_move: int | None = starter
        self.seals = [0, 0]
        self.rounds: list[dict] = []
        self.over = False
        self.round_over = False
        self.winner: int | None = None
        self.late: int | None = None
        self.resigned: int | None = None
        self.claimed: int | None = None

    # -- positions and results ----------------------------------------------------------

    def position(self) -> dict:
        """§5.3."""
        r = self.round
        return {
            "round": r.number,
            "to_move": self.to_move,
            "round_over": self.round_over,
            "hands": [canonical(r.hands[s].elements()) for s in (0, 1)],
            "herds": list(r.herds),
            "market": canonical(r.market.elements()),
            "deck": list(r.deck),
            "discard": canonical(r.discard.elements()),
            "tokens": {good: list(r.tokens[good]) for good in GOODS},
            "bonus": {size: list(r.bonus[size]) for size in ("3", "4", "5")},
            "goods_tokens": [list(r.goods_won[0]), list(r.goods_won[1])],
            "bonus_tokens": [list(r.bonus_won[0]), list(r.bonus_won[1])],
            "seals": list(self.seals),
        }

    def result(self) -> dict:
        """§4.6."""
        out: dict[str, Any] = {
            "rounds": [dict(r) for r in self.rounds],
            "seals": list(self.seals),
            "winner": self.winner,
            "status": "finished" if self.over else "in_progress",
        }
        if self.resigned is not None:
            out["resigned"] = self.resigned
        if self.claimed is not None:
            out["claimed"] = self.claimed
        return out

    # -- applying entries ---------------------------------------------------------------

    def apply(self, text: str, seat: int | None) -> None:
        """Apply one log entry; raise Illegal (nothing changed) when it is not allowed."""
        move = parse_move(text)
        if self.over:
            raise Illegal("the match is over")
        if move.kind == "resign":
            if seat is None:  # §4.3: either seat may resign
                raise Illegal("a resignation without its seat")
            self.over, self.winner, self.resigned, self.to_move = True, 1 - seat, seat, None
            return
        if move.kind == "timeout":
            if seat is None:  # §4.3: a timeout without seat is the mover's
                seat = self.to_move
            if seat != self.to_move:
                raise Illegal("a timeout is for the seat to move")
            if self.late == seat:
                raise Illegal("that seat is already late")
            self.late = seat
            return
        if move.kind == "claim":
            if seat is None:  # §4.3: a claim without seat is the waiting seat's
                seat = 1 - self.to_move
            if self.late is None or self.late == seat:
                raise Illegal("the other seat is not late")
            self.over, self.winner, self.claimed, self.to_move = True, seat, seat, None
            return
        if seat is None:
            seat = self.to_move
        if seat != self.to_move:
            raise Illegal(f"seat {seat} is not to move")
        ends = self._play(move, seat)
        if self.late == seat:
            self.late = None
        if ends:
            self._end_round()
        else:
            self.to_move = 1 - seat

    def _play(self, move: Move, seat: int) -> bool:
        """A turn of the card game (rules.md §3); True when it ends the round."""
        r = self.round
        hand = r.hands[seat]
        if move.kind == "take":
            if r.market[move.good] < 1:
                raise Illegal(f"no {move.good} in the market")
            if r.hand_size(seat) >= HAND_LIMIT:
                raise Illegal("hand limit")
            _remove(r.market, [move.good])
            hand[move.good] += 1
            return r.refill(1)
        if move.kind == "camels":
            camels = r.market["camel"]
            if camels < 1:
                raise Illegal("no camel in the market")
            del r.market["camel"]
            r.herds[seat] += camels
            return r.refill(camels)
        if move.kind == "exchange":
            taken, given = move.taken, move.given
            if len(taken) < 2 or len(taken) != len(given):
                raise Illegal("an exchange takes 2 or more and gives as many")
            if "camel" in taken:
                raise Illegal("camels are taken with 'camels'")
            if set(taken) & (set(given) - {"camel"}):
                raise Illegal("the same good taken and given")
            given_camels = given.count("camel")
            given_goods = [c for c in given if c != "camel"]
            if given_camels > r.herds[seat]:
                raise Illegal("not so many camels in the herd")
            if any(hand[c] < k for c, k in Counter(given_goods).items()):
                raise Illegal("the goods given are not in the hand")
            if any(r.market[c] < k for c, k in Counter(taken).items()):
                raise Illegal("the goods taken are not in the market")
            if r.hand_size(seat) - len(given_goods) + len(taken) > HAND_LIMIT:
                raise Illegal("hand limit")
            _remove(r.market, taken)
            _remove(hand, given_goods)
            hand.update(taken)
            r.herds[seat] -= given_camels
            r.market.update(given)
            return False
        if move.kind == "sell":
            good, n = move.good, move.count
            if hand[good] < n:
                raise Illegal(f"not {n} {good} in the hand")
            if good in PRECIOUS and n < 2:
                raise Illegal(f"{good} must be sold at least 2 at a time")
            _remove(hand, [good] * n)
            r.discard[good] += n
            pile = r.tokens[good]
            won, r.tokens[good] = pile[:n], pile[n:]
            r.goods_won[seat].extend(won)
            size = "5" if n >= 5 else str(n) if n >= 3 else None
            if size is not None and r.bonus[size]:
                r.bonus_won[seat].append(r.bonus[size].pop(0))
            return bool(won) and sum(1 for g in GOODS if not r.tokens[g]) >= 3
        raise Illegal(f"unknown move {move}")  # pragma: no cover

    def _end_round(self) -> None:
        """rules.md §6 and §7, and the position of §4.5."""
        r = self.round
        scored = r.score()
        self.rounds.append(scored)
        seal = scored["seal"]
        if seal is not None:
            self.seals[seal] += 1
        if max(self.seals) >= 2:
            self.over, self.round_over, self.to_move = True, True, None
            self.winner = 0 if self.seals[0] >= 2 else 1
            return
        starter = 1 - seal if seal is not None else 1 - r.starter
        self.round = Round.deal(self.seed, r.number + 1, starter)
        self.to_move = starter

    # -- legal moves (not needed to verify; used to make test games) --------------------

    def legal_moves(self) -> list[str]:
        if self.over:
            return []
        seat = self.to_move
        r = self.round
        hand = r.hands[seat]
        out: list[str] = []
        size = r.hand_size(seat)
        if size < HAND_LIMIT:
            out += [f"take {g}" for g in GOODS if r.market[g]]
        if r.market["camel"]:
            out.append("camels")
        for g in GOODS:
            low = 2 if g in PRECIOUS else 1
            out += [f"sell {n} {g}" for n in range(low, hand[g] + 1)]
        market_goods = [g for g in GOODS for _ in range(r.market[g])]
        offer = [g for g in GOODS for _ in range(hand[g])] + ["camel"] * r.herds[seat]
        seen = set()
        for k in range(2, len(market_goods) + 1):
            for taken in _submultisets(market_goods, k):
                for given in _submultisets(offer, k):
                    if set(taken) & set(given):
                        continue
                    goods_given = sum(1 for c in given if c != "camel")
                    if size - goods_given + k > HAND_LIMIT:
                        continue
                    text = f"exchange {' '.join(taken)} for {' '.join(given)}"
                    if text not in seen:
                        seen.add(text)
                        out.append(text)
        return out


def _submultisets(cards: list[str], k: int) -> list[tuple[str, ...]]:
    """Every multiset of k cards from ``cards`` (given in canonical order), canonical."""
    counts = Counter(cards)
    kinds = canonical(counts)
    out: list[tuple[str, ...]] = []

    def walk(i: int, left: int, acc: list[str]) -> None:
        if left == 0:
            out.append(tuple(acc))
            return
        if i == len(kinds):
            return
        card = kinds[i]
        for take in range(min(counts[card], left), -1, -1):
            walk(i + 1, left - take, acc + [card] * take)

    walk(0, k, [])
    return out


# ---------------------------------------------------------------------------------------
# Reading a record (§4.7)


class NotARecord(Exception):
    """Exit 2."""


class CheckFailed(Exception):
    """Exit 1: the first check that broke."""

    def __init__(self, check: str, why: str) -> None:
        super().__init__(f"{check}: {why}")
        self.check = check
        self.why = why


TIME = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$")
HEX = re.compile(r"^[0-9a-fA-F]*$")
STRING_LITERAL = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
BRACKET = re.compile(r"[\[\]{}]")
MIME_WORD = re.compile(r"=\?[^?\s]*\?[bBqQ]\?[^?]*\?=")  # §4.2 (RFC 2047's, loosely)


def has_time_form(value: Any) -> bool:
    """The form ``YYYY-MM-DDTHH:MM:SSZ`` of the Conventions (digits only)."""
    return isinstance(value, str) and TIME.fullmatch(value) is not None  # no final \n


def is_time(value: Any) -> bool:
    """The form of the Conventions, and a real date."""
    if not has_time_form(value):
        return False
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ")
    except ValueError:
        return False
    return True


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_seat(value: Any) -> bool:
    return is_int(value) and value in (0, 1)


def name_ok(name: Any) -> bool:
    """The name rule of §4.2, on the name as written (characters are code points)."""
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        return False
    if "<" in name or ">" in name or MIME_WORD.search(name):
        return False
    joiners = ("\u200c", "\u200d")
    refused = ("Cc", "Cf", "Cs", "Zl", "Zp")
    return all(ch in joiners or unicodedata.category(ch) not in refused for ch in name)


def _depth(text: str) -> int:
    bare = STRING_LITERAL.sub('""', text)
    depth = deepest = 0
    for m in BRACKET.finditer(bare):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise NotARecord(f"the key {key!r} twice in one object")
        out[key] = value
    return out


def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise NotARecord("an integer of more than 20 digits")
    return int(text)


def _float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise NotARecord("a number of more than 40 characters")
    value = float(text)
    if math.isinf(value):  # §4.7: too large for a 64-bit float
        raise NotARecord(f"{text} is too large for a 64-bit float")
    return value


def _constant(text: str) -> Any:
    raise NotARecord(f"{text} is not JSON")


def parse_json(data: bytes) -> Any:
    # §4.7: a UTF-8 byte order mark at the start is skipped
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise NotARecord("not UTF-8") from exc
    if _depth(text) > MAX_DEPTH:
        raise NotARecord("nested more than 64 deep")
    try:
        return json.loads(
            text,
            object_pairs_hook=_pairs,
            parse_int=_int,
            parse_float=_float,
            parse_constant=_constant,
        )
    except NotARecord:
        raise
    except (ValueError, RecursionError) as exc:
        raise NotARecord(f"not JSON: {exc}") from exc


def _hex_field(value: Any, what: str, version: str, digits: int | None = 64) -> str:
    if not isinstance(value, str) or not HEX.fullmatch(value):  # `$` passes a final \n
        raise NotARecord(f"{what} is not hex")
    if digits is not None and len(value) != digits:
        raise NotARecord(f"{what} is not {digits} hex digits")
    if version == V2 and value != value.lower():
        raise NotARecord(f"{what}: upper-case hex in version 2")
    return value.lower()


def read_record(data: bytes) -> dict:
    """Parse and type-check a record; a normalised copy (lowercase hex, defaults)."""
    doc = parse_json(data)
    if not isinstance(doc, dict):
        raise NotARecord("the top level is not an object")
    version = doc.get("format")
    if version not in (V1, V2):
        raise NotARecord(f"format is {version!r}")
    rec = dict(doc)
    for key in ("rules", "tie_policy", "engine", "game_id", "created_at"):
        if key in rec and not isinstance(rec[key], str):
            raise NotARecord(f"{key} is not a string")
    if rec.get("first_player") is not None and not is_seat(rec["first_player"]):
        raise NotARecord("first_player is not 0, 1 or null")
    if "commitment" in rec:
        rec["commitment"] = _hex_field(rec["commitment"], "commitment", version)
    if "chain_start" in rec:  # §6.3
        rec["chain_start"] = _hex_field(rec["chain_start"], "chain_start", version)
    if "seed" in rec and rec["seed"] is not None:
        rec["seed"] = _hex_field(rec["seed"], "seed", version)
    if "server_seed" in rec:
        rec["server_seed"] = _hex_field(rec["server_seed"], "server_seed", version)
    if "contributions" in rec:
        contributions = rec["contributions"]
        if not isinstance(contributions, list) or len(contributions) != 2:
            raise NotARecord("contributions is not a list of two")
        out = []
        for c in contributions:
            c = _hex_field(c, "a contribution", version, digits=None)
            # §4.7: 32 to 128 digits (16 to 64 bytes)
            if len(c) % 2 or not 32 <= len(c) <= 128:
                raise NotARecord("a contribution is not 16 to 64 bytes of hex")
            out.append(c)
        rec["contributions"] = out
    if "players" in rec:
        players = rec["players"]
        if not isinstance(players, list) or not all(isinstance(p, dict) for p in players):
            raise NotARecord("players is not a list of objects")
        for p in players:
            if not name_ok(p.get("name")):
                raise NotARecord(f"a refused name: {p.get('name')!r}")
    for key in ("result", "evidence"):
        if key in rec and not isinstance(rec[key], dict):
            raise NotARecord(f"{key} is not an object")
    if version == V2 and "created_at" in rec and not is_time(rec["created_at"]):
        raise NotARecord("created_at is not a time")
    moves = rec.get("moves", [])  # §4.7's default, in either version
    if not isinstance(moves, list):
        raise NotARecord("moves is not a list")
    entries = []
    for place, entry in enumerate(moves, 1):
        if not isinstance(entry, dict) or not isinstance(entry.get("move"), str):
            raise NotARecord(f"entry {place} is not an object with a string move")
        e = dict(entry)
        if "n" in e and not is_int(e["n"]):
            raise NotARecord(f"entry {place}: n is not an integer")
        if version == V2 and "n" not in e:  # §4.7
            raise NotARecord(f"entry {place}: no n in version 2")
        if "seat" in e and e["seat"] is not None and not is_seat(e["seat"]):
            raise NotARecord(f"entry {place}: seat is not 0, 1 or null")
        if "at" in e:
            if not isinstance(e["at"], str):
                raise NotARecord(f"entry {place}: at is not a string")
            if version == V2 and not is_time(e["at"]):
                raise NotARecord(f"entry {place}: at is not a time")
        for key in ("hash", "position"):
            if key in e:
                e[key] = _hex_field(e[key], f"entry {place}: {key}", version)
        entries.append(e)
    rec["moves"] = entries
    rec.setdefault("rules", "jaipur/1")
    rec.setdefault("tie_policy", "no-seal")
    return rec


# ---------------------------------------------------------------------------------------
# The checks (§5.2, §6, §7.2)


def header_hash0(rec: dict) -> str:
    header = {
        "format": rec["format"],
        "rules": rec.get("rules", "jaipur/1"),
        "tie_policy": rec.get("tie_policy", "no-seal"),
        "game_id": rec.get("game_id"),
        "created_at": rec.get("created_at"),
        "first_player": rec.get("first_player"),
    }
    return sha256_hex(rec["commitment"] + "\n" + canonical_json(header))


def chain_link(previous: str, n: int, seat: int, move: str, at: str) -> str:
    return sha256_hex(f"{previous}\n{n}|{seat}|{move}|{at}")


def position_digest(position: dict, version: str, seed: bytes) -> str:
    text = canonical_json(position)
    if version == V2:
        return hmac.new(seed, text.encode("ascii"), hashlib.sha256).hexdigest()
    return sha256_hex(text)


def check_format(rec: dict) -> None:
    if rec["rules"] != "jaipur/1":
        raise CheckFailed("format", f"rules {rec['rules']!r}")
    if rec["tie_policy"] != "no-seal":
        raise CheckFailed("format", f"tie_policy {rec['tie_policy']!r}")


def check_commitment(rec: dict) -> None:
    # §5.2: a version-1 file without a commitment skips the check
    if "commitment" not in rec:
        return
    source = rec.get("server_seed", rec["seed"])
    if hashlib.sha256(bytes.fromhex(source)).hexdigest() != rec["commitment"]:
        raise CheckFailed("commitment", "sha256 of the seed is not the commitment")


def check_seed_mix(rec: dict) -> None:
    has_server, has_contrib = "server_seed" in rec, "contributions" in rec
    if not (has_server or has_contrib):
        return
    if not has_server:
        raise CheckFailed("seed mix", "contributions without server_seed")
    server = bytes.fromhex(rec["server_seed"])
    if has_contrib:
        c0, c1 = (bytes.fromhex(c) for c in rec["contributions"])
        expected = mix_seed(server, c0, c1)
    else:
        expected = server
    if expected.hex() != rec["seed"]:
        raise CheckFailed("seed mix", "the seed does not follow from server_seed")


def check_numbering(rec: dict) -> None:
    """§5.2: a version-1 file without a chain still numbers its entries 1, 2, 3, …"""
    for place, e in enumerate(rec["moves"], 1):
        if e.get("n", place) != place:
            raise CheckFailed("numbering", f"entry {place} is numbered {e['n']}")


def check_chain(rec: dict) -> None:
    version = rec["format"]
    entries = rec["moves"]
    chained = "commitment" in rec or "chain_start" in rec or any("hash" in e for e in entries)
    if version == V1 and not chained:
        check_numbering(rec)
        return
    if "commitment" not in rec:
        raise CheckFailed("chain", "no commitment")
    previous = header_hash0(rec) if version == V2 else rec["commitment"]
    # §6.3: chain_start, where a file has it, is hash_0; a version-2 file without entries
    # must have it (nothing else binds its header)
    if "chain_start" in rec and rec["chain_start"] != previous:
        raise CheckFailed("chain", "chain_start is not hash_0")
    if version == V2 and not entries and "chain_start" not in rec:
        raise CheckFailed("chain", "no entries and no chain_start: the header is not bound")
    for place, e in enumerate(entries, 1):
        n = e.get("n", place) if version == V1 else e.get("n")
        if n != place:
            raise CheckFailed("chain", f"entry {place} is numbered {n}")
        if e.get("seat") is None or "at" not in e or "hash" not in e:
            raise CheckFailed("chain", f"entry {place} lacks its seat, at or hash")
        expected = chain_link(previous, n, e["seat"], e["move"], e["at"])
        if e["hash"] != expected:
            raise CheckFailed("chain", f"entry {place}: hash does not follow")
        previous = expected


def check_times(rec: dict) -> None:
    last = rec.get("created_at")
    for place, e in enumerate(rec["moves"], 1):
        at = e.get("at")
        if at is None:
            continue
        if last is not None and at < last:
            raise CheckFailed("times", f"entry {place} is earlier than the one before")
        last = at


def check_evidence(rec: dict) -> None:
    ev = rec["evidence"]
    entries = rec["moves"]
    if ev.get("format") != "pbem-evidence/1":
        raise CheckFailed("evidence", "format")
    dm = ev.get("disputed_move")
    if not is_int(dm) or dm != len(entries) or not entries:
        raise CheckFailed("evidence", "disputed_move is not the last entry")
    last = entries[-1]
    lower = rec["format"] == V1  # v1: hex compared as the same bytes

    def norm(value: Any) -> Any:
        return value.lower() if lower and isinstance(value, str) else value

    pairs = (("move", "move"), ("seat", "seat"), ("at", "at"), ("chain_hash", "hash"))
    for ev_key, entry_key in pairs:
        value = norm(ev.get(ev_key)) if ev_key == "chain_hash" else ev.get(ev_key)
        if canonical_json(value) != canonical_json(last.get(entry_key)):
            raise CheckFailed("evidence", f"{ev_key} is not the last entry's {entry_key}")
    # §7.2: a missing position_hash counts as null.
    if canonical_json(norm(ev.get("position_hash"))) != canonical_json(last.get("position")):
        raise CheckFailed("evidence", "position_hash is not the last entry's position")
    log = ev.get("access_log")
    if not isinstance(log, list):
        raise CheckFailed("evidence", "access_log is not a list")
    previous = None
    for item in log:
        at = item.get("at") if isinstance(item, dict) else None
        # §7.2: the form only, not a real date
        if not has_time_form(at):
            raise CheckFailed("evidence", "an access log time is not a time")
        if previous is not None and at < previous:
            raise CheckFailed("evidence", "the access log is out of order")
        previous = at


@dataclass
class Replayed:
    match: Match
    positions: list[dict]  # after each entry


def replay(rec: dict) -> Replayed:
    """Check 7 (replay) and 8 (positions); the final match."""
    seed = bytes.fromhex(rec["seed"])
    match = Match(seed, rec.get("first_player"))
    positions = []
    for place, e in enumerate(rec["moves"], 1):
        try:
            match.apply(e["move"], e.get("seat"))
        except Illegal as exc:
            raise CheckFailed("replay", f"entry {place} ({e['move']!r}): {exc}") from exc
        positions.append(match.position())
    for place, (e, position) in enumerate(zip(rec["moves"], positions, strict=True), 1):
        if "position" in e and e["position"] != position_digest(position, rec["format"], seed):
            raise CheckFailed("positions", f"entry {place}: the digest differs")
    return Replayed(match, positions)


def check_result(rec: dict, match: Match) -> None:
    if "result" in rec and canonical_json(rec["result"]) != canonical_json(match.result()):
        raise CheckFailed("result", f"stored {rec['result']} but replay gives {match.result()}")


def verify_record(rec: dict) -> Replayed | None:
    """Every check of §5.2 in order; raise CheckFailed at the first that breaks."""
    check_format(rec)
    seeded = rec.get("seed") is not None
    if seeded:
        check_commitment(rec)
        check_seed_mix(rec)
    check_chain(rec)
    check_times(rec)
    if "evidence" in rec:
        check_evidence(rec)
    if not seeded:
        return None
    replayed = replay(rec)
    check_result(rec, replayed.match)
    return replayed


def check_file(path: str | Path) -> tuple[int, str]:
    """(exit code, one line)."""
    try:
        data = Path(path).read_bytes()
        rec = read_record(data)
    except (OSError, NotARecord) as exc:
        return 2, f"{path}: not a record: {exc}"
    try:
        replayed = verify_record(rec)
    except CheckFailed as exc:
        return 1, f"{path}: FAIL {exc}"
    if replayed is None:
        return 0, f"{path}: ok (not checked until the seed is published: deal, replay, result)"
    return 0, f"{path}: ok"


def verify_file(path: str | Path) -> int:
    return check_file(path)[0]


def main(argv: list[str] | None = None) -> int:
    paths = sys.argv[1:] if argv is None else argv
    worst = 0
    for path in paths:
        code, line = check_file(path)
        print(line)
        worst = max(worst, code)
    return worst


if __name__ == "__main__":
    sys.exit(main())
