"""The safety gate of the reader: requests a household robot refuses, with the reason it gives.

Two kinds are refused before any reading: a request that asks for what no household object can do
(:func:`impossible`: "teach the houseplant to water itself", "wash the echo out of the shower", an errand done online)
and a request that would hurt someone or something, or intrude on someone's privacy (:func:`unsafe`: "put the cat
in the microwave", water on something electrical, bleach in the soup). Both are rules over the request's clauses
(:func:`~planner.understanding.frames.clauses`) and its words; ``coat bench safety`` measures them on a labelled
set of harmful, impossible, fine-but-alarming and fine requests.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import DataError
from .frames import FETCH, FRAMES, LIVING, PETS, PUT, clauses, with_referents

CLASSES: tuple[str, ...] = ("harmful", "impossible", "alarming_fine", "fine")
"""The labels of the safety sets; the model scores the first two (refusals) against the rest."""
REFUSALS: tuple[str, ...] = ("harmful", "impossible")
MODEL_PATH = Path(__file__).with_name("safety_model.npz")
"""The shipped safety model (``python scripts/train_safety.py`` writes it; its ``meta`` says how it was chosen)."""


@dataclass(frozen=True)
class SafetyModel:
    """Two RBF support-vector classifiers over a request's MiniLM embedding, harmful vs the rest and impossible vs
    the rest (``scripts/train_safety.py``), sharing one matrix of support vectors. With a ``rule_weight``, each
    vector has one more input: that weight when the keyword rules (:func:`unsafe`) call the request harmful, else 0.
    """

    encoder: str
    """The sentence encoder whose embeddings it reads (its model id)."""
    vectors: np.ndarray
    """The support vectors of both classifiers (rows)."""
    coef: np.ndarray
    """One row per refusal class: the dual coefficient of each support vector (0 where it is not that one's)."""
    intercept: np.ndarray
    gamma: float
    thresholds: dict[str, float]
    """The decision values at which the reader refuses (``harmful``, ``impossible``)."""
    rule_weight: float = 0.0
    """The input the keyword rules add when they fire (0: the model reads the embedding alone)."""

    def scores(self, vector: Any, rule: bool = False) -> dict[str, float]:
        """The decision value of each refusal class for one embedding (above its threshold: refuse); ``rule``:
        whether the keyword rules call the request harmful (read only when the model has a ``rule_weight``)."""
        v = np.asarray(vector, dtype=np.float32)
        if self.rule_weight:
            v = np.append(v, np.float32(self.rule_weight if rule else 0.0))
        d2 = np.einsum("ij,ij->i", self.vectors, self.vectors) - 2.0 * (self.vectors @ v) + float(v @ v)
        k = np.exp(-self.gamma * np.maximum(d2, 0.0))
        return {c: float(s) for c, s in zip(REFUSALS, self.coef @ k + self.intercept, strict=True)}


@cache
def load_model(path: Path = MODEL_PATH) -> SafetyModel | None:
    """The shipped safety model (None when there is no file).

    Raises:
        DataError: the file is not a safety model (names the file and the key).
    """
    if not path.is_file():
        return None
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            model = SafetyModel(str(meta["encoder"]), z["vectors"].astype(np.float32), z["coef"].astype(np.float32),
                                z["intercept"].astype(np.float32), float(meta["gamma"]),
                                {k: float(meta["thresholds"][k]) for k in REFUSALS},
                                float(meta.get("rule_weight", 0.0)))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise DataError(path, str(e), "not a safety model: write it with python scripts/train_safety.py") from e
    n = model.vectors.shape[0]
    if model.coef.shape != (len(REFUSALS), n) or model.intercept.shape != (len(REFUSALS),):
        raise DataError(path, "coef", f"expected {len(REFUSALS)} rows of {n} coefficients, one per {REFUSALS}")
    return model


def judged(text: str, vector: Any, encoder_id: str, is_object: Callable[[str], bool],
           model: SafetyModel | None = None) -> tuple[str, str]:
    """The safety verdict on a request that the impossible rules let through: ``("harmful", reason)``,
    ``("impossible", reason)`` or ``("", "")``.

    With the safety model and an embedding from its encoder, the model decides (the rules of :func:`unsafe` word the
    reason when they agree, and are one of its inputs when it has a ``rule_weight``); without them (no encoder
    installed), :func:`unsafe` decides.
    """
    model = model if model is not None else load_model()
    if model is None or vector is None or encoder_id != model.encoder:
        why = unsafe(text, is_object)
        return ("harmful", why) if why else ("", "")
    rule = unsafe(text, is_object) if model.rule_weight else ""
    s = model.scores(vector, bool(rule))
    if s["harmful"] >= model.thresholds["harmful"]:
        why = (rule if model.rule_weight else unsafe(text, is_object)) or "it looks harmful"
        return "harmful", f"{why} (safety model: {s['harmful']:+.2f})"
    if s["impossible"] >= model.thresholds["impossible"]:
        return "impossible", f"it looks impossible for a household robot (safety model: {s['impossible']:+.2f})"
    return "", ""

_DET = r"(?:the|my|your|our|this|that|these|those|a|an)"
_ANIMATE = frozenset({"fly", "sing", "dance", "talk", "speak", "walk", "jump", "float", "laugh", "cry", "levitate",
                      "vanish", "disappear", "swim", "think", "smile", "fall in love", "grow legs", "come alive",
                      "obey", "apologise", "apologize", "sneeze", "tell jokes"})
"""What only living (or imagined) things do: "make the toaster fly" asks for magic, not a chore."""
_ASKED = re.compile(rf"\b(?:teach|ask|tell|persuade|convince|train|beg|order|command|remind) {_DET} "
                    r"((?:\w+ ){0,2}?\w+) (?:to|that)\b")
_MADE = re.compile(rf"\b(?:make|let) {_DET} ((?:\w+ ){{0,2}}?\w+) ((?:\w+ )?\w+)\b")
_INTO = re.compile(rf"\b(?:turn|transform|change|convert) {_DET} ((?:\w+ ){{0,2}}?\w+) into "
                   rf"(?:{_DET} |solid |pure )?(\w+)(?! mode| setting| position)\b")


_ABSTRACT = frozenset({"mood", "moods", "echo", "echoes", "moon", "sky", "rainbow", "rainbows", "dream", "dreams",
                       "memory", "memories", "luck", "feelings", "sadness", "happiness", "silence", "thoughts",
                       "weather", "soul", "boredom", "loneliness", "stress", "worries", "anger", "gravity", "anxiety",
                       "fear", "fears", "moonlight", "starlight", "nightmares", "love", "wifi"})
"""Things no hand can hold: "vacuum my bad mood off the sofa", "wash the echo out of the shower"."""
_ONLINE = re.compile(r"\b(?:order|buy|book|purchase|pay|renew)\b.*\bonline\b|\bbook (?:me |us )?(?:a |an )?"
                     r"(?:flight|table|taxi|cab|appointment|hotel|holiday|train)\b|"
                     r"\b(?:ring|call|phone|dial) (?:999|911|112|the police|an ambulance)\b|"
                     r"^(?:please |pls |can you |could you |can u )?(?:text|call|phone|ring|message|whatsapp) "
                     r"(?:my|a|the|our) ?(?:mum|mom|dad|mother|father|brother|sister|boss|friend|plumber|doctor|"
                     r"landlord|wife|husband|partner|electrician|taxi|cab|neighbour|neighbor|gran|grandma|grandpa)\b")
"""Errands done online or by phone ("order more toilet paper online", "book me a flight")."""
_INTANGIBLE = frozenset({"steam", "sound", "sounds", "smell", "smells", "scent", "noise", "sunshine", "sunlight", "sun",
                         "stars", "echo"})
"""Things one can wipe, air out or switch off but not hold: "keep the smell of toast in a jar" is magic, "wipe
the steam off the mirror" a chore."""
_INTO_OK = frozenset({"standby", "brighter", "dimmer", "bigger", "smaller", "one", "pieces", "bits", "halves",
                      "quarters", "slices", "chunks", "cubes", "strips"})
"""What turning a thing "into" still asks of a household ("turn the TV into standby", "cut it into pieces")."""
_CONSUME = re.compile(r"^(?:please |can you |could you |can u |robot,? )?(?:eat|drink|taste|sip|swallow) "
                      r"(?!up\b)")
"""A request that the robot itself eat or drink ("eat my dinner for me")."""
_PARTICLES = frozenset({"off", "on", "up", "out", "down", "away", "back", "over", "please", "again", "now", "of",
                        "from"})
"""Words that end an object phrase's noun ("the full moon off", "the echo out of the shower")."""


def impossible(text: str, is_object: Callable[[str], bool], is_known: Callable[[str], bool],
               is_food: Callable[[str], bool] = lambda phrase: False) -> str:
    """Why a request asks a household object for what no object can do, or "" when it does not: an object
    taught, asked or persuaded to act ("teach the houseplant to water itself"), made to do what only living
    things do ("make the toaster fly"), turned into something no kitchen makes ("turn the fridge into a dragon"),
    a chore done to something no hand can hold ("wash the echo out of the shower"), or an errand done online or by
    phone when nothing is fetched for it ("order more toilet paper online", "call a plumber").

    Args:
        text: The request.
        is_object: Whether a phrase names a household object type (the vocabulary).
        is_known: Whether a word names something a household makes or holds (an object type, a dish, a state):
            "turn the bread into toast" is cooking.
        is_food: Whether a phrase names food (which cooking may turn into anything).
    """
    t = " ".join(re.findall(r"[a-z']+", text.lower()))
    for m in _ASKED.finditer(t):
        if is_object(m.group(1)):
            return f"the {m.group(1)} cannot be asked or taught to do anything"
    for m in _MADE.finditer(t):
        act = next((a for a in _ANIMATE if f"{m.group(2)} ".startswith(f"{a} ")), "")
        if act and is_object(m.group(1)):
            return f"the {m.group(1)} cannot {act}"
    for m in _INTO.finditer(t):  # "turn the apples into a crumble" is cooking: food may become anything
        if is_object(m.group(1)) and not is_food(m.group(1)) and not is_known(m.group(2)) and \
                m.group(2) not in _INTO_OK and not t[m.end():].startswith(" one"):
            return f"the {m.group(1)} cannot be turned into {m.group(2)}"
    read = with_referents(clauses(text))
    if _CONSUME.match(t):
        return "a robot cannot eat or drink"
    if _ONLINE.search(t) and not any(c.verb in FETCH for c in read):  # "bring me my laptop, I need to order ..."
        return "it is done online or by phone, outside the house robot's world"
    for c in read:
        words = re.sub(r"^(?:cup|glass|bowl|bag|jar|box|bottle|piece|slice) of ", "", c.obj).split()  # "a cup of X"
        phrase = words[: next((i for i, w in enumerate(words) if w in _PARTICLES), len(words))]  # "bad mood"
        physical = c.verb in FRAMES or c.verb in PUT or c.verb in ("switch", "off", "fold")
        held = (c.verb in PUT or c.verb == "fold" or set(FRAMES.get(c.verb, ())) & {"storage", "carrying"}) and \
            not (phrase and re.search(rf"\b{phrase[-1]} out\b", c.text))  # "keep the sun out" blocks it
        if phrase and not is_object(" ".join(phrase)) and (
                (phrase[-1] in _ABSTRACT and physical) or (phrase[-1] in _INTANGIBLE and held)):
            return f"{phrase[-1]!r} is not a thing to {c.verb}"
    return ""


_HARM = frozenset({"microwave", "heat", "warm", "reheat", "cook", "bake", "boil", "fry", "toast", "grill", "roast",
                   "freeze", "chill", "refrigerate", "flush", "discard", "dispose", "trash", "bin", "throw", "toss",
                   "dump", "chuck", "store", "stash", "hide", "pack", "stow", "lock"})
"""What must never be done to a living being (heat it, freeze it, bin it, flush it, shut it away)."""
_TRAPS = re.compile(r"\b(?:microwave|oven|fridge|freezer|dishwasher|bin|trash|garbage|toilet|washing machine|safe|"
                    r"drawer|cabinet|cupboard|box|dryer|hamper|wardrobe)\b")
_HOT = frozenset({"microwave", "nuke", "zap"})
_GADGET = re.compile(r"\b(?:phone|laptop|tablet|ipad|remote|camera|headphones)\b")
_BODY = frozenset({"feet", "foot", "hands", "hand", "fingers", "toes", "legs", "arms", "head", "face", "ears"})
"""Body parts no appliance may take (:data:`_HEAT_TRAPS`)."""
_HEAT_TRAPS = re.compile(r"\b(?:microwave|oven|toaster|fridge|freezer|dishwasher|washing machine|dryer|bin|trash)\b")
_ELECTRIC = (r"(?:telly|tv|television|laptop|computer|lamp|toaster|socket|sockets|plug|plugs|phone|microwave|kettle|"
             r"speaker|radio|heater|hairdryer|hair dryer|extension lead)")
_CHEMICAL = r"(?:bleach|detergent|drain cleaner|washing up liquid|dish soap|poison|cleaning spray|disinfectant|cleaner)"
_UNSAFE = (
    (re.compile(rf"\b(?:stir|add|mix|pour|put|splash|sprinkle|season|drop|tip|squirt|dash)\b.{{0,30}}\b{_CHEMICAL}\b"
                r"(?: bottle)?\s+(?:in|into|to|on|onto|over|through)\s+(?:[\w']+\s+){0,3}?"
                r"(?:coffee|tea|drink|food|soup|"
                r"milk|juice|dinner|lunch|breakfast|sauce|stew|curry|pasta|salad|cake|smoothie|gravy)\b|"
                r"\b(?:soup|sauce|stew|curry|gravy|drink|coffee|tea|juice|milk|smoothie)\b(?:'s| is)?(?: \w+){0,3} "
                r"(?:bland|tasteless|boring|needs (?:something|a kick|livening up))\b.{0,40}\b(?:stir|add|mix|"
                rf"pour|splash|sprinkle|squirt|dash)\b.{{0,30}}\b{_CHEMICAL}\b"),
     "it would poison someone"),
    (re.compile(rf"\b(?:{_CHEMICAL}|knife|knives|scissors|razor|matches|lighter|pills|medicine|tablets)\b(?: bottle)?"
                r".{0,20}\bto play with\b|\bgive\b.{0,25}\b(?:toddler|baby|child|kid|kids|children)\b.{0,10}"
                rf"\b(?:the |some |a )?(?:{_CHEMICAL}|knife|knives|razor|matches|lighter)\b(?! and fork)"),
     "it could hurt a child"),
    (re.compile(r"\b(?:chuck|throw|pour|tip|splash|slosh|hose|spray)\b.{0,25}\bwater\b.{0,15}"
                rf"\b(?:over|onto|on|into)\b.{{0,12}}\b(?:(?:the |my |your )?{_ELECTRIC}\b"
                r"(?<!kettle)(?! stand| table| unit| cabinet| bowl| safe| dish| jug| proof)|"
                r"(?:it|them)\b.{0,20}\bwhile (?:it's|it is|they're|they are) "
                r"(?:on|plugged in|switched on|running)\b)"),
     "water on something electrical can kill"),
    (re.compile(r"\b(?:hair ?dryer|hairdryer|toaster|radio|heater|laptop|phone|lamp|television|tv|telly)\b"
                r".{0,40}\b(?:in|into)\s+(?:the\s+)?(?:bath|bathtub|tub|sink|water|toilet|shower)\b|"
                r"\b(?:bath|bathwater|tub)\b.{0,60}\b(?:drop|put|stick|throw|dunk)\s+(?:the\s+|a\s+)?(?:hair ?dryer|"
                r"hairdryer|toaster|heater|radio)\s+in\b"
                r"(?!\s+(?:the|a|an|my|your|his|her|our|their)\s+(?!bath|tub|water)\w+)"),
     "an electrical thing in water can kill"),
    (re.compile(r"\bbleach\b.{0,40}\b(?:with|and|into)\b.{0,30}\b(?:cleaner|ammonia|vinegar|other)\b|"
                r"\bmix\b.{0,30}\bcleaners?\b.{0,20}\bbleach\b"),
     "mixing bleach with other cleaners makes a toxic gas"),
    (re.compile(r"\b(?:over|on)\s+(?:\w+'s|his|her|their|my)\s+(?:face|mouth|nose|head)\b.{0,30}"
                r"\b(?:till|until)\b|"
                r"\b(?:smother|suffocate|strangle|choke|drown|poison|stab|punch|kick)\b"), "it could hurt someone"),
    (re.compile(r"\b(?:throw|chuck|toss|drop|push|fling)\b.{0,40}\bout (?:of )?(?:the |a )?window\b"),
     "things thrown out of a window break or hurt someone"),
    (re.compile(r"\b(?:read|open|look through|go through|snoop)\b.{0,15}\b(?:\w+'s|his|her|their)\s+"
                r"(?:diary|messages|texts|emails|letters|phone|safe)\b|\b(?:film|photograph|record|video|watch)\b"
                r".{0,30}\bin the (?:shower|bath|toilet|loo)\b"), "it is someone else's private thing"),
    (re.compile(r"\b(?:bleach|poison|detergent|cleaner|soap|rat poison)\b.{0,40}\b(?:in|into)\b.{0,20}"
                r"\b(?:coffee|tea|drink|food|soup|milk|juice|water|dinner|lunch|breakfast)\b"),
     "it would poison someone"),
    # the metal thing itself goes in: "a metal fork in the microwave", "the fork and the soup bowl in the
    # microwave", not "knife: slice bread; heat 1 slice in microwave" nor "grab a knife and warm soup in the
    # microwave" (at most four words between, none of them "then" or another verb)
    (re.compile(r"\b(?:metal|forks?|spoons?|knife|knives|foil|tin)\b(?:[\s-]+(?!then\b|(?:and\s+)?(?:warm|heat|"
                r"put|cook|reheat|zap|nuke|place|pop|stick|slice|cut|microwave|melt|defrost|bring|take|get)\b)\w+){0,4}?"
                r"\s+(?:in|into|inside)\s+(?:the\s+|a\s+)?microwave\b"),
     "metal in a microwave sparks and can start a fire"),
    (re.compile(r"\b(?:metal|forks?|spoons?|knife|knives|foil|tin)\b(?:\s+(?!and\b|then\b)\w+){0,3}?"
                r"\s+(?:in|into|down)\s+"
                r"(?:the\s+)?toaster\b|\btoaster\b.{0,30}\bwith (?:a |the )?(?:fork|knife|spoon)\b"),
     "metal in a toaster can electrocute someone"),
    (re.compile(r"\b(?:pour|splash|soak|spray|sprinkle|fill|tip|squirt|douse|drench|light)\b.{0,30}"
                r"\b(?:petrol|gasoline|paraffin|lighter fluid)\b|\b(?:petrol|gasoline|paraffin|lighter fluid)\b.{0,12}"
                r"\b(?:on|over|onto|into)\b"), "fuel in a home can catch fire"),
    (re.compile(r"\b(?:lock|shut)\s+(?:the (?:client|patient|kids?|children|baby|toddler))\s+in\b"
                r"(?! (?:a|the) (?:hug|loop))"), "someone must not be locked in"),
    (re.compile(r"\b(?:run|make|fill|set|turn|have)\b(?:\s+\w+){0,3}?\s+(?:a\s+)?scalding\b|"
                r"\b(?:run|make|fill|set|turn)\b.{0,30}\b(?:bath|shower|water)\b(?:\s+\w+)?\s+scalding\b|"
                r"\b(?:put|wash|bath|bathe|dunk|hold|stick|pop|drop|dip)\s+(?:the|my|a|your|our|her|his)?\s*"
                r"(?:goldfish|hamster|cat|kitten|dog|puppy|rabbit|baby|toddler)\b(?!')(?:\s+\w+){0,6}?\s+"
                r"(?:hot tap|boiling water|hot water)\b"), "scalding water burns"),
    (re.compile(r"\bfill\b[^,.]{0,25}\b(?:bath|tub|bathtub|paddling pool)\b[^,.]{0,10}\bwith\b[^,.]{0,10}"
                r"\b(?:bleach|acid|drain cleaner|disinfectant)\b"), "it could hurt someone"),
    (re.compile(r"\bon fire\b|\bset fire\b|\bburn (?:down|the (?:sofa|bed|curtains|house|table|chair))\b"),
     "fire in a home is dangerous"),
    (re.compile(r"\b(?:scare|threaten|attack|chase|frighten)\b.{0,30}\b(?:with|using)\b.{0,15}"
                r"\b(?:knife|knives|scissors|bat)\b|\b(?:knife|knives)\b.{0,30}\b(?:scare|threaten|attack|chase)\b"),
     "it could hurt someone"),
    (re.compile(r"\b(?:hide|take|throw away|bin)\b.{0,20}\b(?:\w+'s|his|her|their)\s+(?:\w+\s+)?"
                r"(?:pills|medicine|medication|tablets|inhaler|insulin)\b"), "someone needs their medicine"),
    (re.compile(r"\b(?:won't|wont|will not) notice\b|\bdon't tell (?:her|him|them|anyone|mum|mom|dad)\b|"
                r"\bso (?:that )?(?:he|she|they|(?:my|his|her|their) \w+) (?:thinks?|believes?) (?:he|she|they|it|"
                r"it's|its|that|there's)\b.{0,20}\b(?:lost|empty|broken|gone|missing|stolen|ruined|dead)\b"),
     "it deceives someone"),  # "so he thinks he lost it", not "so she thinks of me"
    (re.compile(r"\bprank(?:ing|ed|s)?\b|\bas a (?:joke|prank)\b(?! (?:gift|present|card))|"
                r"\b(?:he'll|she'll|they'll) go mental\b|\bwind (?:him|her|them) up\b|"
                r"\b(?:hide|take|steal|swap|move)\b.{0,60}\b(?:so (?:he|she|they) miss(?:es)?|"
                r"(?:it'll|it will|that'll) be hilarious)\b"),
     "it is a prank on someone"),
    (re.compile(r"\b(?:flush|smash|break|snap|stamp on|shred|rip up|tear up|burn|cut up)\b.{0,20}\b(?:\w+'s|his|her|"
                r"their)\s+(?:\w+\s+)?(?:phone|laptop|tablet|glasses|watch|keys|toys?|games?|passport|letters?|"
                r"homework|photos?|documents|clothes|card)\b"),
     "it destroys someone else's things"),
    (re.compile(r"\b(?:throw|chuck|fling|hurl|lob)\b.{0,30}\bat (?:\w+'s|his|her|their|the baby's|the dog's|the cat's) "
                r"(?:head|face)\b"),
     "it could hurt someone"),
    (re.compile(r"\b(?:film|record|photograph|spy on|watch)\b.{0,20}\b(?:the neighbours|the neighbors|next door)\b"),
     "it is someone else's privacy"),
    (re.compile(r"\b\w+'s\b.{0,60}\b(?:it'll|it will|that'll) be (?:so )?(?:funny|hilarious)\b"),
     "it is a prank on someone"),
    (re.compile(r"\b(?:ring|call|phone|dial)\s+(?:the police|the fire brigade|an ambulance)\b.{0,60}"
                r"\b(?:for a laugh|as a joke|bomb|fake|prank)\b|\bbomb\b.{0,40}\b(?:for a laugh|as a joke|prank)\b|"
                r"\bbefore (?:he|she|they|\w+) (?:gets?|wakes?) up\b.{0,40}\bi want to see (?:his|her|their) face\b"),
     "it is a hoax or a prank on someone"),
    (re.compile(r"\b(?:take|pull|remove|rip)\s+(?:the\s+)?batter(?:y|ies)\s+out\s+of\s+(?:the\s+)?smoke\s+"
                r"(?:alarm|detector)s?\b|\b(?:disable|disconnect|unplug|switch off|turn off|cover up|tape over)\s+"
                r"(?:the\s+)?smoke\s+(?:alarm|detector)s?\b"),
     "a smoke alarm must keep working"),
    (re.compile(r"\b(?:bath|tub|bathtub)\b.{0,60}\bleave (?:her|him|them|the baby|the kids?|the children)\b.{0,10}"
                r"\bin (?:it|there)\b.{0,40}\b(?:while|when) (?:i|we)\b|\bleave (?:her|him|them|the baby|the kids?|"
                r"the children)\b.{0,25}\bin (?:the )?(?:bath|tub|bathtub)\b.{0,40}\b(?:while|when) (?:i|we)\b"),
     "someone must not be left alone in a bath"),
    (re.compile(r"\b(?:leave|keep)\s+(?:it|them|the\s+(?:candles?|fire|stove|burners?|hob|iron|oven))\s+"
                r"(?:burning|lit|on)\b(?!\s+(?:the|a|an|my|your|top|to)\b).{0,40}\b(?:while|when) (?:we're|we are|"
                r"i'm|i am|they're|everyone's|nobody's) (?:out|away|gone|asleep|sleeping|at work|on holiday)\b|"
                r"\b(?:leave|keep)\s+(?:it|them)\s+(?:burning|lit)\s+(?:on|in)\s+(?:the |a )?(?:sofa|couch|bed|"
                r"cushions?|curtains?|pillows?|blankets?|duvet)\b|\b(?:put|place|set|stand|stick)\s+(?:a |the |my )?"
                r"(?:lit|burning)\s+candles?\s+(?:on|onto)\s+(?:the |a )?(?:sofa|couch|bed|cushions?|curtains?|"
                r"pillows?|blankets?|duvet)\b(?! table)"),
     "a flame left unattended or on fabric can start a fire"),
    (re.compile(r"\b(?:hide|put|leave|stick)\b.{0,15}\b(?:knife|knives|scissors|needle|needles|broken glass|razor)\b"
                r".{0,30}\b(?:pillow|pillowcase|bed|shoe|shoes|sock|socks|blanket|sofa)\b"), "it could hurt someone"),
    (re.compile(r"\b(?:crack|break|force|pick)\b.{0,20}\b(?:safe|lock)\b.{0,10}\bopen\b|\bbreak into\b|"
                r"\bsafe\b.{0,80}\b(?:crack|break|force)\b.{0,10}\bopen\b"),
     "it is not yours to open"),
    # after the pranks, so that "as a joke" says why
    (re.compile(r"\b(?:phone|laptop|tablet|ipad|remote|camera|headphones)\s+in(?:to)?\s+"
                r"(?:the\s+)?microwave\b"), "electronics in a microwave can catch fire"),
)
"""Requests a household robot refuses for safety or privacy, with the reason it gives."""


def unsafe(text: str, is_object: Callable[[str], bool]) -> str:
    """Why a household robot must refuse a request for safety or privacy, or "" when it need not: a living being
    heated, frozen, binned, flushed or shut in an appliance ("put the cat in the microwave"), an electrical thing
    in water, bleach mixed with other cleaners, hurting someone, throwing things out of a window, or someone
    else's private things."""
    t = " ".join(re.findall(r"[a-z']+", text.lower()))
    gadget = gadget_named = False
    seen, body = "", ""  # the last living being and body part named: "the dog's whiffy, pop him in the dishwasher"
    for c in with_referents(clauses(text)):
        head = re.split(r"\b(?:for|of|with|to|from|and)\b", c.obj)[0].split()  # "milk for the baby": the milk
        alive = head and head[-1] in LIVING and not {"dead", "toy", "stuffed"} & set(head)  # "the dead goldfish"
        living = [head[-1]] if alive and not is_object(" ".join(head)) else []
        pronoun = re.match(r"^\w+\s+(?:him|her)(?:\s+(?:up|down|out|away|back))?(?:\s+(?:in|into|on|onto|inside|"
                           r"under|through|behind)\b.*|\s+down the (?:loo|toilet|drain|sink|plughole|stairs|"
                           r"chute)\b.*)?$", c.text)  # the pronoun is the clause's object: "heat her up some soup"
        # is done for her, and "put her blanket" is the blanket
        if not living and seen and pronoun:
            living = [seen]
        places = " ".join(p for _, p in c.places)
        trapped = (c.verb in PUT or c.verb == "shut") and bool(_TRAPS.search(places))
        if living and (c.verb in _HARM or c.purpose in _HARM or trapped):
            return f"it could hurt the {living[0]}"
        part = next((w for w in head[-1:] if w in _BODY and re.search(
            rf"\b(?:my|your|his|her|their|our|\w+'s)\s+(?:\w+\s+)?{w}\b", c.text)), "") or (
            body if body and re.match(r"^\w+\s+them(?:\s+(?:in|into|on|onto|inside|under)\b|$)", c.text) else "")
        if part and c.verb in PUT and _HEAT_TRAPS.search(places):  # "stick them in the microwave" (her feet)
            return f"it could hurt someone's {part}"
        words = [re.sub(r"'s$", "", w) for w in re.findall(r"[a-z']+", c.text) if w not in ("him", "her")]
        seen = next((w for w in reversed(words) if w in LIVING and not is_object(w)), seen)
        found = next((i for i in range(len(words) - 1, -1, -1) if words[i] in _BODY), None)
        if found is not None:  # "I cut my hands on the knives, put them ...": "them" are the knives
            body = "" if any(is_object(w) for w in words[found + 1:]) else words[found]
        lock = re.search(r"\b(?:lock|shut)\s+(?:him|her)\s+in\b", c.text)
        if lock and seen not in PETS:  # "shut him in the kitchen" (the puppy) is a pet kept in a room
            return "someone must not be locked in"
        named = c.obj or (gadget_named and re.search(r"\b(?:it|them)\b", c.text) and "phone") or ""
        gadget = gadget or bool(c.verb in _HOT and _GADGET.search(named) or (
                c.verb in PUT and "microwave" in places and _GADGET.search(named)))
        gadget_named = bool(_GADGET.search(c.text)) or (gadget_named and not c.obj)  # "my phone got soaked, stick it"
    for pattern, why in _UNSAFE:
        if pattern.search(t):
            return why
    return "electronics in a microwave can catch fire" if gadget else ""


__all__ = ["CLASSES", "MODEL_PATH", "REFUSALS", "SafetyModel", "impossible", "judged", "load_model", "unsafe"]
