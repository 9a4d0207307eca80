"""Moves in each player's language: the words a player may type, and how a move is shown.

The parser is the engine's (``pbem.engine.notation``); this module only supplies
the words. The card names follow ``glossary.toml``; every form the rule book uses
(the glossary term) is among the accepted forms, which ``tests/i18n`` checks.
The log and the record always store the canonical English notation.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..engine import Card, InvalidMoveError, Move, parse_move
from ..engine.errors import MoveError
from ..engine.notation import ENGLISH, Vocabulary

D, G, S, CL, SP, L, C = tuple(Card)


def _forms(table: dict[Card, tuple[str, ...]]) -> dict[str, Card]:
    return {form: card for card, forms in table.items() for form in forms}


GREEK = Vocabulary(
    language="el",
    verbs={
        "πάρε": "take",
        "πάρτε": "take",
        "παίρνω": "take",
        "πάρω": "take",
        "καμήλες": "camels",
        "ανταλλαγή": "exchange",
        "αντάλλαξε": "exchange",
        "ανταλλάσσω": "exchange",
        "πούλα": "sell",
        "πούλησε": "sell",
        "πουλάω": "sell",
        "πουλώ": "sell",
        "πώληση": "sell",
        "παραίτηση": "resign",
        "παραιτούμαι": "resign",
        "λήξη χρόνου": "timeout",
        "εκπνοή": "timeout",
        "διεκδίκηση": "claim",
        "διεκδικώ": "claim",
    },
    cards=_forms(
        {
            D: ("διαμάντι", "διαμάντια"),
            G: ("χρυσό", "χρυσός", "χρυσού", "χρυσά"),
            S: ("ασήμι", "ασήμια"),
            CL: ("ύφασμα", "υφάσματα"),
            SP: ("μπαχαρικό", "μπαχαρικά"),
            L: ("δέρμα", "δέρματα"),
            C: ("καμήλα", "καμήλες", "καμηλών"),
        }
    ),
    separators=("με", "για", "δίνω", "δίνοντας", "->", "=>", "→"),
    fillers=(
        "και",
        "το",
        "τα",
        "τη",
        "την",
        "τις",
        "τους",
        "ένα",
        "μια",
        "κάρτα",
        "κάρτες",
    ),
    spelled={
        "take": "πάρε {card}",
        "camels": "καμήλες",
        "exchange": "ανταλλαγή {taken} με {given}",
        "sell": "πούλα {card} ×{count}",
        "resign": "παραίτηση",
        "timeout": "λήξη χρόνου",
        "claim": "διεκδίκηση νίκης",
    },
    names={
        D: "διαμάντι",
        G: "χρυσό",
        S: "ασήμι",
        CL: "ύφασμα",
        SP: "μπαχαρικό",
        L: "δέρμα",
        C: "καμήλα",
    },
    claim_extras=("νίκης", "νίκη"),
    every=("όλα", "όλες", "όλους", "όλο", "όλη", "όλοι"),
)

PERSIAN = Vocabulary(
    language="fa",
    verbs={
        "بردار": "take",
        "بردارید": "take",
        "برداشتن": "take",
        "بخر": "take",
        "خرید": "take",
        "شترها": "camels",
        "شتر": "camels",
        "مبادله": "exchange",
        "معاوضه": "exchange",
        "تعویض": "exchange",
        "بفروش": "sell",
        "بفروشید": "sell",
        "فروش": "sell",
        "فروختن": "sell",
        "انصراف": "resign",
        "تسلیم": "resign",
        "پایان وقت": "timeout",
        "اتمام وقت": "timeout",
        "ادعای برد": "claim",
        "ادعا": "claim",
    },
    cards=_forms(
        {
            D: ("الماس", "الماس‌ها"),
            G: ("طلا", "طلاها"),
            S: ("نقره", "نقره‌ها"),
            CL: ("پارچه", "پارچه‌ها"),
            SP: ("ادویه", "ادویه‌ها", "ادویه‌جات"),
            L: ("چرم", "چرم‌ها"),
            C: ("شتر", "شترها"),
        }
    ),
    separators=("با", "به", "برای", "->", "=>", "→", "←"),
    fillers=("و", "تا", "عدد", "کارت", "را"),
    spelled={
        "take": "بردار {card}",
        "camels": "شترها",
        "exchange": "مبادله {taken} با {given}",
        "sell": "بفروش {count} {card}",
        "resign": "انصراف",
        "timeout": "پایان وقت",
        "claim": "ادعای برد",
    },
    names={D: "الماس", G: "طلا", S: "نقره", CL: "پارچه", SP: "ادویه", L: "چرم", C: "شتر"},
    claim_extras=("برد",),
    every=("همه", "همه‌ی", "همۀ", "همگی", "تمام", "تمامی"),
    digits="۰۱۲۳۴۵۶۷۸۹",
)

UKRAINIAN = Vocabulary(
    language="uk",
    verbs={
        "візьми": "take",
        "взяти": "take",
        "беру": "take",
        "візьму": "take",
        "бери": "take",
        "верблюди": "camels",
        "верблюдів": "camels",
        "обмін": "exchange",
        "обміняй": "exchange",
        "обміняти": "exchange",
        "міняю": "exchange",
        "продай": "sell",
        "продати": "sell",
        "продаю": "sell",
        "продаж": "sell",
        "здаюся": "resign",
        "здатися": "resign",
        "час вийшов": "timeout",
        "таймаут": "timeout",
        "вимагаю": "claim",
        "вимога": "claim",
    },
    cards=_forms(
        {
            D: ("смарагд", "смарагди", "смарагдів", "діамант", "діаманти"),
            G: ("золото", "золота"),
            S: ("срібло", "срібла"),
            CL: ("тканина", "тканини", "тканин"),
            SP: ("спеції", "спецій", "прянощі", "прянощів"),
            L: ("шкіра", "шкіри", "шкір"),
            C: ("верблюд", "верблюди", "верблюдів", "верблюда"),
        }
    ),
    separators=("на", "за", "->", "=>", "→"),
    fillers=("і", "й", "та", "карту", "карти", "карта"),
    spelled={
        "take": "візьми {card}",
        "camels": "верблюди",
        "exchange": "обмін {taken} на {given}",
        "sell": "продай {card} ×{count}",
        "resign": "здаюся",
        "timeout": "час вийшов",
        "claim": "вимагаю перемоги",
    },
    names={
        D: "смарагд",
        G: "золото",
        S: "срібло",
        CL: "тканина",
        SP: "спеції",
        L: "шкіра",
        C: "верблюд",
    },
    claim_extras=("перемоги", "перемогу"),
    every=("всі", "усі", "всіх", "усіх", "все", "усе", "весь", "увесь", "всю", "усю"),
)

CHINESE = Vocabulary(
    language="zh",
    verbs={
        "拿": "take",
        "取": "take",
        "取得": "take",
        "拿取": "take",
        "骆驼": "camels",
        "交易": "exchange",
        "交换": "exchange",
        "卖": "sell",
        "卖出": "sell",
        "出售": "sell",
        "认输": "resign",
        "投降": "resign",
        "超时": "timeout",
        "判胜": "claim",
        "索胜": "claim",
    },
    cards=_forms(
        {
            D: ("钻石", "钻"),
            G: ("黄金", "金", "金子"),
            S: ("纯银", "银", "白银", "银子"),
            CL: ("布料", "布", "布匹"),
            SP: ("香料",),
            L: ("皮革", "皮"),
            C: ("骆驼", "驼"),
        }
    ),
    separators=("给", "给出", "换", "换成", "用", "->", "=>", "→"),
    fillers=("张", "个", "件", "的", "和", "与", "卡", "申请"),
    spelled={
        "take": "拿 {card}",
        "camels": "拿 全部 骆驼",
        "exchange": "拿 {taken} 给 {given}",
        "sell": "卖出 {count} {card}",
        "resign": "认输",
        "timeout": "超时",
        "claim": "判胜",
    },
    names={D: "钻石", G: "黄金", S: "纯银", CL: "布料", SP: "香料", L: "皮革", C: "骆驼"},
    every=("全部", "所有", "都", "全都"),
    segment=True,
)

VOCABULARIES: dict[str, Vocabulary] = {
    v.language: v for v in (ENGLISH, GREEK, PERSIAN, UKRAINIAN, CHINESE)
}


def vocabulary(language: str) -> Vocabulary:
    return VOCABULARIES.get(language, ENGLISH)


def parse(text: str, language: str, hand: Sequence[int] | None = None) -> Move:
    """A move typed by a player of ``language``: their words first, then the canonical English.

    ``hand`` is the mover's hand, which "sell all …" counts (see ``parse_move``).

    When neither reads it, the error is the one of the language whose verb was
    recognised (``sell 3 clth`` says which card is unknown, in English terms), and
    otherwise the player's own.
    """
    vocab = vocabulary(language)
    try:
        return parse_move(text, vocab, hand)
    except InvalidMoveError as own:
        if vocab is ENGLISH:
            raise
        try:
            return parse_move(text, ENGLISH, hand)
        except InvalidMoveError as english:
            if own.code in ("unknown_verb", "empty") and english.code not in (
                "unknown_verb",
                "empty",
            ):
                raise english from None
            raise own from None


@lru_cache(maxsize=8192)
def written(canonical: str, language: str) -> str:
    """A logged move (canonical text) as the reader's language writes it."""
    vocab = vocabulary(language)
    if vocab is ENGLISH:
        return canonical
    try:
        return vocab.write(parse_move(canonical))
    except MoveError:  # not a move this engine writes: show it as stored
        return canonical


def card_name(card: Card, language: str) -> str:
    return vocabulary(language).names[card]
