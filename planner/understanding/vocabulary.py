"""The words for AI2-THOR's object types and liquids, and where a request names them.

Each type's own words come from its name ("ButterKnife" -> "butter knife", "TVStand" -> "tv stand"); the
table :data:`SYNONYMS` adds the everyday words people use ("fridge", "telly", "trash can", "glass"). A
mention is the longest run of words that names a type, singular or plural ("apples", "knives").

Example:
    >>> vocab = Vocabulary(("Apple", "ButterKnife", "Knife"))
    >>> [(m.types, m.words) for m in vocab.mentions("cut the apple with the butter knife")]
    [(('Apple',), 'apple'), (('ButterKnife',), 'butter knife')]
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

LIQUIDS: dict[str, str] = {"water": "water", "coffee": "coffee", "wine": "wine", "tea": "water", "drink": "water"}
"""Liquid words -> the liquid AI2-THOR fills with (tea and a drink are water to AI2-THOR)."""

SYNONYMS: dict[str, tuple[str, ...]] = {
    "fridge": ("Fridge",), "refrigerator": ("Fridge",), "freezer": ("Fridge",),
    "stove": ("StoveBurner",), "hob": ("StoveBurner",), "cooktop": ("StoveBurner",), "burner": ("StoveBurner",),
    "oven": ("Microwave",), "microwave oven": ("Microwave",),
    "frying pan": ("Pan",), "skillet": ("Pan",), "saucepan": ("Pot",), "cooking pot": ("Pot",),
    "glass": ("Cup",), "tumbler": ("Cup",), "coffee cup": ("Mug",), "dish": ("Plate",), "dishes": ("Plate", "Bowl"),
    "trash": ("GarbageCan",), "trash can": ("GarbageCan",), "bin": ("GarbageCan",), "rubbish bin": ("GarbageCan",),
    "garbage": ("GarbageCan",), "waste basket": ("GarbageCan",), "wastebasket": ("GarbageCan",),
    "sink": ("SinkBasin", "Sink"), "washbasin": ("SinkBasin",), "basin": ("SinkBasin",),
    "tub": ("BathtubBasin", "Bathtub"), "bath": ("BathtubBasin", "Bathtub"),
    "lamp": ("DeskLamp", "FloorLamp"), "light": ("LightSwitch", "DeskLamp", "FloorLamp"),
    "lights": ("LightSwitch", "DeskLamp", "FloorLamp"), "light switch": ("LightSwitch",),
    "tv": ("Television",), "telly": ("Television",), "television set": ("Television",),
    "couch": ("Sofa",), "settee": ("Sofa",), "arm chair": ("ArmChair",), "recliner": ("ArmChair",),
    "remote": ("RemoteControl",), "phone": ("CellPhone",), "mobile": ("CellPhone",), "smartphone": ("CellPhone",),
    "computer": ("Desktop", "Laptop"), "pc": ("Desktop",), "notebook computer": ("Laptop",),
    "plant": ("HousePlant",), "plants": ("HousePlant",), "flowers": ("HousePlant",), "houseplant": ("HousePlant",),
    "toast": ("Bread",), "loaf": ("Bread",), "salad": ("Lettuce",), "eggs": ("Egg",), "omelette": ("Egg",),
    "omelet": ("Egg",), "sponge": ("DishSponge",), "rag": ("Cloth",), "dishcloth": ("Cloth",),
    "paper towel": ("PaperTowelRoll",), "paper towels": ("PaperTowelRoll",), "tissue": ("TissueBox",),
    "tissues": ("TissueBox",), "soap": ("SoapBar", "SoapBottle"), "hand soap": ("SoapBottle",),
    "shower": ("ShowerHead",), "loo": ("Toilet",), "toilet roll": ("ToiletPaper",), "brush": ("ScrubBrush",),
    "weights": ("Dumbbell",), "ball": ("BasketBall",), "basketball": ("BasketBall",), "bat": ("BaseballBat",),
    "racquet": ("TennisRacket",), "clock": ("AlarmClock",), "alarm": ("AlarmClock",), "wristwatch": ("Watch",),
    "paper": ("Newspaper",), "cd": ("CD",), "keys": ("KeyChain",), "key": ("KeyChain",), "card": ("CreditCard",),
    "vacuum": ("VacuumCleaner",), "hoover": ("VacuumCleaner",), "table": ("DiningTable", "CoffeeTable", "SideTable"),
    "counter": ("CounterTop",), "worktop": ("CounterTop",), "cupboard": ("Cabinet",), "shelves": ("Shelf",),
    "bookshelf": ("Shelf", "ShelvingUnit"), "teddy": ("TeddyBear",), "kettle": ("Kettle",), "flower vase": ("Vase",),
    "picture": ("Painting",), "stepladder": ("Stool",), "step stool": ("Stool",), "ladder": ("Stool",),
    "laundry basket": ("LaundryHamper",), "laundry hamper": ("LaundryHamper",), "hamper": ("LaundryHamper",),
    "big screen": ("Television",), "nightstand": ("SideTable",), "night stand": ("SideTable",),
    "bedside table": ("SideTable",), "kitchen roll": ("PaperTowelRoll",),
    "cooker": ("StoveBurner", "Oven"), "faucet": ("Faucet",), "tap": ("Faucet",), "loo roll": ("ToiletPaper",),
    "pepper": ("PepperShaker",), "salt": ("SaltShaker",),
    "shampoo": ("SoapBottle",), "shampoo bottle": ("SoapBottle",), "conditioner": ("SoapBottle",),
    "body wash": ("SoapBottle",),
    "hand wash": ("SoapBottle",), "magazine": ("Newspaper", "Book"), "magazines": ("Newspaper", "Book"),
    "figurine": ("Statue",), "ornament": ("Statue", "Vase"), "ornaments": ("Statue", "Vase"),
    "teaspoon": ("Spoon",), "beaker": ("Cup",), "cushion": ("Pillow",), "cushions": ("Pillow",),
    "pouffe": ("Ottoman",), "cot": ("Bed",), "crib": ("Bed",), "kettlebell": ("Dumbbell",), "novel": ("Book",),
    "paperback": ("Book",), "biro": ("Pen",), "sweater": ("Cloth",), "jumper": ("Cloth",), "wardrobe": ("Dresser",),
    "clothes": ("Cloth",), "clothing": ("Cloth",), "laundry": ("Cloth",), "sock": ("Cloth",), "socks": ("Cloth",),
    "shirt": ("Cloth",), "t-shirt": ("Cloth",), "basket": ("LaundryHamper",), "washing basket": ("LaundryHamper",),
    "clothes basket": ("LaundryHamper",),
    "toilet roll holder": ("ToiletPaperHanger",), "loo roll holder": ("ToiletPaperHanger",),
    "toilet paper holder": ("ToiletPaperHanger",), "towel rail": ("TowelHolder",), "towel rack": ("TowelHolder",),
    "towel ring": ("HandTowelHolder",), "holder": ("ToiletPaperHanger", "TowelHolder", "HandTowelHolder"),
    "spuds": ("Potato",), "spud": ("Potato",), "herbs": ("HousePlant",), "cactus": ("HousePlant",),
    "succulent": ("HousePlant",), "succulents": ("HousePlant",), "fern": ("HousePlant",), "orchid": ("HousePlant",),
    "squirty bottle": ("SprayBottle",), "weight": ("Dumbbell",), "spray": ("SprayBottle",), "mister": ("SprayBottle",),
    "coffee maker": ("CoffeeMachine",), "coffeemaker": ("CoffeeMachine",), "coffe maker": ("CoffeeMachine",),
    "box of tissues": ("TissueBox",), "kleenex": ("TissueBox",), "lamplight": ("DeskLamp", "FloorLamp"),
    "bottle of wine": ("WineBottle",), "kitchen island": ("CounterTop",), "island": ("CounterTop",),
    "washcloth": ("Cloth",), "wash cloth": ("Cloth",), "refridgerator": ("Fridge",), "tomatoe": ("Tomato",),
    "potatoe": ("Potato",), "dinning table": ("DiningTable",), "stovetop": ("StoveBurner",),
    "stove top": ("StoveBurner",), "dustbin": ("GarbageCan",), "waste bin": ("GarbageCan",),
    "trash bin": ("GarbageCan",), "bath tub": ("BathtubBasin", "Bathtub"), "desk light": ("DeskLamp",),
    "floor light": ("FloorLamp",), "reading light": ("DeskLamp", "FloorLamp"),
    "reading lamp": ("DeskLamp", "FloorLamp"), "bedside light": ("DeskLamp",), "bedside lamp": ("DeskLamp",),
}
"""Everyday words -> the AI2-THOR types they usually mean (several when the word is ambiguous)."""

NOT_TYPES: frozenset[str] = frozenset({"TargetCircle"})
"""Types no one names in a request."""

NOT_MENTIONS: frozenset[str] = frozenset({"phone number", "phone numbers", "phone call", "phone calls", "time zone",
                                         "book club", "table tennis", "pillow fight"})
"""Phrases with a type word in them that name no object ("jot down a phone number")."""


def type_words(name: str) -> str:
    """``ButterKnife`` -> ``butter knife``; ``TVStand`` -> ``tv stand``; ``CD`` -> ``cd``."""
    return " ".join(re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+", name)).lower()


def singular(word: str) -> str:
    """A plural's singular, good enough for object words (knives, tomatoes, dishes, cups)."""
    for plural, single in (("ives", "ife"), ("oes", "o"), ("ches", "ch"), ("shes", "sh"), ("ies", "y"), ("xes", "x"),
                           ("sses", "ss")):
        if word.endswith(plural) and len(word) > len(plural) + 1:
            return word[: -len(plural)] + single
    if word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 2:
        return word[:-1]  # "cds" -> "cd"
    return word


class Mention(NamedTuple):
    """A run of words that names object types (or a liquid)."""

    types: tuple[str, ...]
    words: str
    start: int
    """Index of the first word in the request's word list."""
    end: int
    liquid: bool = False


class Vocabulary:
    """Phrases for the given object types (the AI2-THOR table, or a scene's own types) and the liquids."""

    def __init__(self, object_types: Iterable[str]) -> None:
        known = {t for t in object_types if t not in NOT_TYPES and not t.endswith(("Sliced", "Cracked"))}
        phrases: dict[str, tuple[str, ...]] = {}
        for t in sorted(known):
            phrases.setdefault(type_words(t), ())
            phrases[type_words(t)] += (t,)
            phrases.setdefault(t.lower(), (t,))  # "tvstand", "saltshaker"
        for word, types in SYNONYMS.items():
            ok = tuple(t for t in types if t in known)
            if ok and word not in phrases:
                phrases[word] = ok
        self.phrases = phrases
        self.longest = max((len(p.split()) for p in phrases), default=1)
        self.words = frozenset(w for p in phrases for w in p.split()) | frozenset(LIQUIDS)

    def mentions(self, text: str | list[str]) -> list[Mention]:
        """The type and liquid mentions of ``text`` (a string or its word list), left to right, longest first."""
        words = re.findall(r"[a-z]+", text.lower()) if isinstance(text, str) else text
        out: list[Mention] = []
        i = 0
        while i < len(words):
            for n in range(min(self.longest, len(words) - i), 0, -1):
                run = words[i:i + n]
                phrase = " ".join(run)
                single = " ".join([*run[:-1], singular(run[-1])])
                if phrase in NOT_MENTIONS and n > 1:
                    i += n
                    break
                types = self.phrases.get(phrase) or self.phrases.get(single)
                if types:
                    out.append(Mention(types, phrase, i, i + n))
                    i += n
                    break
                if n == 1 and (run[0] in LIQUIDS):
                    out.append(Mention((LIQUIDS[run[0]],), run[0], i, i + 1, liquid=True))
                    i += 1
                    break
            else:
                i += 1
        return out


__all__ = ["LIQUIDS", "NOT_MENTIONS", "NOT_TYPES", "SYNONYMS", "Mention", "Vocabulary", "singular", "type_words"]
