"""Generate the bundled demo corpora: small NER, sentiment and sentence-pair sets, deterministically.

Why synthetic: the demo must run in minutes on a laptop and must *show* the three embedding
families (random / GloVe / contextual) behaving differently. So the corpora plant exactly the
properties Arora et al. (ACL 2020) found to favour contextual embeddings:

- unseen words: dev/test draw most entities (and some filler words) from held-out pools of real
  names, places, companies and adjectives that never occur in training but that GloVe knows;
- ambiguity: words such as "Washington", "Jordan", "Lincoln", "Apple", "Amazon" carry different
  labels in different contexts, and sentiment adjectives flip label under negation or when they sit
  in a subordinate clause ("not bad at all", "although the plot was dull, ...");
- complex structure: long (3-5 token) organisation / product names and nested relative clauses.

Run ``python experiments/make_demo.py [--out advisor/demo] [--seed N]``. Only the standard
library is used and every random choice comes from one seeded ``random.Random`` iterating over
tuples (never sets), so the output bytes are identical on every machine and run.
"""

from __future__ import annotations

import argparse
import csv
import io
import random
from collections import Counter
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

__all__ = [
    "DEFAULT_OUT",
    "PAIR_SIZES",
    "SEED",
    "SIZES",
    "ClassifyItem",
    "DemoData",
    "NerSentence",
    "PairItem",
    "generate",
    "main",
    "write_demo",
]

SEED = 2020
# Package data (advisor ui / advisor demo read it from an installed wheel); experiments/demo links here.
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "advisor" / "demo"
SIZES: dict[str, int] = {"train": 600, "dev": 150, "test": 200}
SPLITS: tuple[str, ...] = ("train", "dev", "test")
# Probability that an entity / filler slot in dev or test is filled from a held-out pool.
HELDOUT_ENTITY_RATE = 0.6
HELDOUT_FILLER_RATE = 0.5
# Probability that an entity slot is filled with one of the deliberately ambiguous names.
AMBIGUOUS_RATE = 0.3


# ---------------------------------------------------------------------------------------------
# NER vocabulary. "seen" pools are used in every split, "held" pools only in dev and test.
# Token sets of held pools are disjoint from everything the training split can contain.
# ---------------------------------------------------------------------------------------------

FIRST_SEEN = (
    "John", "Mary", "David", "Sarah", "Michael", "Laura", "James", "Emma", "Robert", "Anna",
    "Thomas", "Julia", "Peter", "Susan", "Daniel", "Karen", "Richard", "Linda", "Paul", "Helen",
    "Mark", "Rachel", "Steven", "Maria", "Kevin", "Nancy", "George", "Elizabeth", "Brian", "Lisa",
)  # fmt: skip
LAST_SEEN = (
    "Smith", "Johnson", "Brown", "Miller", "Davis", "Wilson", "Taylor", "Anderson", "Moore",
    "Martin", "Thompson", "Harris", "Clark", "Lewis", "Walker", "Robinson", "Wright", "Scott",
    "Green", "Baker", "Adams", "Nelson", "Carter", "Mitchell", "Roberts", "Turner", "Phillips",
)  # fmt: skip
# First names that are also places: the same word is PER here and LOC in LOC_AMBIGUOUS.
FIRST_AMBIGUOUS = (
    "Georgia", "Virginia", "Sydney", "Austin", "Florence", "Victoria", "Charlotte", "Chelsea",
    "Madison", "Jordan", "Paris", "Dallas",
)  # fmt: skip
# Famous people whose names are also places or companies.
PER_FAMOUS = (
    "George Washington", "Abraham Lincoln", "Michael Jordan", "Paris Hilton", "Henry Ford",
    "Walt Disney", "Michael Dell", "Andrew Jackson", "James Madison", "Sam Houston",
    "Martin Luther King", "Franklin Delano Roosevelt",
)  # fmt: skip
# Surnames used alone ("President Lincoln", "Ford said"), again colliding with places and companies.
SURNAME_AMBIGUOUS = ("Washington", "Lincoln", "Jordan", "Jackson", "Madison", "Ford", "Houston", "Dell")
FIRST_HELD = (
    "Oliver", "Sophie", "Lucas", "Chloe", "Nathan", "Hannah", "Victor", "Olivia", "Patrick",
    "Monica", "Gregory", "Natalie", "Simon", "Rebecca", "Arthur", "Diana", "Vincent", "Rosa",
    "Felix", "Elena", "Ivan", "Priya", "Ahmed", "Fatima", "Carlos", "Lucia", "Mohammed", "Hugo",
)  # fmt: skip
LAST_HELD = (
    "Fischer", "Novak", "Rossi", "Kowalski", "Garcia", "Nakamura", "Patel", "Dubois", "Schmidt",
    "Jensen", "Ivanov", "Moreno", "Santos", "Tanaka", "Kumar", "Hughes", "Murphy", "Sullivan",
    "Bennett", "Foster", "Hayes", "Ortiz", "Reyes", "Chen", "Singh", "Khan", "Weber", "Larsen",
)  # fmt: skip

LOC_SEEN = (
    "London", "Berlin", "Tokyo", "Chicago", "Boston", "Madrid", "Rome", "Toronto", "Mumbai",
    "Cairo", "Moscow", "Beijing", "Brazil", "Canada", "France", "Germany", "India", "Mexico",
    "New York", "Los Angeles", "San Francisco", "Hong Kong", "New Delhi", "South Africa",
    "United States", "Buenos Aires", "Rio de Janeiro", "Salt Lake City",
    "District of Columbia", "Czech Republic", "Republic of Korea",
)  # fmt: skip
LOC_AMBIGUOUS = (
    "Washington", "Jordan", "Lincoln", "Paris", "Georgia", "Virginia", "Sydney", "Austin",
    "Florence", "Victoria", "Charlotte", "Madison", "Jackson", "Houston", "Dallas", "Chelsea",
    "Amazon",
)  # fmt: skip
LOC_HELD = (
    "Lisbon", "Vienna", "Prague", "Warsaw", "Dublin", "Oslo", "Helsinki", "Athens", "Istanbul",
    "Nairobi", "Lagos", "Santiago", "Lima", "Seoul", "Bangkok", "Jakarta", "Manila", "Melbourne",
    "Auckland", "Montreal", "Vancouver", "Denver", "Seattle", "Atlanta", "Miami", "Detroit",
    "Edinburgh", "Glasgow", "Barcelona", "Munich", "Zurich", "Stockholm", "Copenhagen",
    "Budapest", "Kenya", "Peru", "Norway", "Portugal", "Vietnam", "Kuala Lumpur", "Cape Town",
    "Abu Dhabi", "Tel Aviv", "Sri Lanka", "Saudi Arabia",
    "Bosnia and Herzegovina", "United Arab Emirates", "Democratic Republic of the Congo",
    "Trinidad and Tobago", "Papua New Guinea", "Sierra Leone",
)  # fmt: skip

ORG_SEEN = (
    "Google", "Microsoft", "Intel", "Toyota", "Siemens", "Nike", "Boeing", "Reuters",
    "General Electric", "Goldman Sachs", "Morgan Stanley", "Deutsche Bank", "Harvard University",
    "Bank of America", "United Nations", "World Health Organization", "European Central Bank",
    "International Monetary Fund", "New York Stock Exchange", "Federal Bureau of Investigation",
    "Massachusetts Institute of Technology", "Royal Bank of Scotland", "Museum of Modern Art",
    "Bank of New York Mellon", "University of California", "National Football League",
    "Federal Reserve Bank",
)  # fmt: skip
ORG_AMBIGUOUS = (
    "Apple", "Amazon", "Ford", "Disney", "Dell", "Hilton", "Shell", "Target", "Jaguar", "Delta",
    "Oracle", "Chelsea", "Washington Post", "Ford Motor Company", "Walt Disney Company",
    "Amazon Web Services", "Lincoln Center", "Paris Saint Germain",
)  # fmt: skip
ORG_HELD = (
    "Samsung", "Sony", "Nestle", "Unilever", "Volkswagen", "Honda", "Nokia", "Pfizer", "Netflix",
    "Adidas", "Heineken", "Ikea", "Panasonic", "Philips", "Xerox", "Yahoo", "Starbucks", "Walmart",
    "Food and Drug Administration", "World Wildlife Fund", "Bank of England",
    "International Olympic Committee", "London School of Economics", "Wells Fargo",
    "National Aeronautics and Space Administration", "American Civil Liberties Union",
    "World Trade Organization", "Procter and Gamble", "Metropolitan Museum of Art",
    "Princeton University", "Lockheed Martin", "Rolls Royce",
    "British Broadcasting Corporation", "European Space Agency", "National Health Service",
    "Centers for Disease Control", "Environmental Protection Agency",
    "Securities and Exchange Commission", "Organization of Petroleum Exporting Countries",
)  # fmt: skip

PRODUCT_SEEN = (
    "iPhone", "PlayStation", "Kindle", "Xbox", "Toyota Prius", "Microsoft Office", "Google Maps",
    "Boeing 747", "Nike Air Max", "Intel Pentium",
)  # fmt: skip
PRODUCT_AMBIGUOUS = (
    "Windows",
    "Apple Watch",
    "Ford Mustang",
    "Amazon Kindle",
    "Jaguar XJ",
    "Royal Dutch Shell",
)
PRODUCT_HELD = (
    "iPad", "Walkman", "Android", "Photoshop", "Firefox", "Gmail", "Skype", "BlackBerry",
    "Volkswagen Beetle", "Honda Civic", "Sony Walkman", "Nintendo Wii", "Samsung Galaxy",
    "Adobe Acrobat Reader", "Nokia 3310", "Airbus A380",
    "Samsung Galaxy Note", "Nintendo Game Boy", "Toyota Land Cruiser", "Sony PlayStation Portable",
)  # fmt: skip

# Filler words: the slot name, then (seen, held-out) alternatives.
NER_FILLERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "SAY": (
        ("said", "announced", "confirmed", "stated", "claimed", "explained"),
        ("insisted", "acknowledged", "revealed", "declared", "argued", "admitted"),
    ),
    "ROLE": (
        ("chief executive", "spokesman", "president", "director", "founder", "manager"),
        ("chairman", "treasurer", "spokeswoman", "economist", "ambassador", "analyst"),
    ),
    "NOUN": (
        ("plan", "report", "deal", "agreement", "project", "budget"),
        ("proposal", "merger", "lawsuit", "settlement", "initiative", "audit"),
    ),
    "DAY": (
        ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday"),
        ("Saturday", "Sunday"),
    ),
    "MONTH": (
        ("January", "March", "May", "July", "September", "November"),
        ("February", "April", "June", "August", "October", "December"),
    ),
    "NUM": (("two", "three", "five", "ten", "twelve", "20"), ("four", "six", "eight", "15", "40", "nine")),
    "YEAR": (("1998", "2004", "2010", "2015", "2019"), ("1987", "2001", "2007", "2012", "2021")),
    "RELATIVE": (("sister", "brother", "father", "mother"), ("cousin", "uncle", "aunt", "nephew")),
}

# Dozens of templates; {PER} {LOC} {ORG} {PRODUCT} are entity slots, other {X} are NER_FILLERS.
# Tokens are separated by single spaces. Several have relative clauses that push the verb far
# from its subject, and several plant the non-entity reading of an ambiguous word.
NER_TEMPLATES = (
    "{PER} , the {ROLE} of {ORG} , {SAY} on {DAY} that the company would open a new office in {LOC} .",
    "{PER} was born in {LOC} and moved to {LOC} at the age of {NUM} .",
    "{ORG} {SAY} that it had agreed to buy {ORG} for {NUM} billion dollars .",
    "After {NUM} years at {ORG} , {PER} left to start a company in {LOC} .",
    "The {NOUN} that {PER} , who had worked for {ORG} in {LOC} for a decade , signed last {MONTH} "
    "was never made public .",
    "{PER} flew from {LOC} to {LOC} on {DAY} to meet {PER} .",
    "Shares of {ORG} fell sharply after {PER} {SAY} that sales of the {PRODUCT} had slowed .",
    "{ORG} will stop selling the {PRODUCT} in {LOC} next year .",
    "Critics in {LOC} , where the {PRODUCT} was first released , were not impressed .",
    "President {PER} gave the speech in {LOC} in {YEAR} .",
    "{PER} , a {ROLE} at {ORG} , {SAY} the {NOUN} would be announced in {LOC} .",
    "Tourists who visit {LOC} often travel on to {LOC} by train .",
    "{PER} bought a {PRODUCT} for a {RELATIVE} who lives in {LOC} .",
    "According to {ORG} , the population of {LOC} grew by {NUM} percent last year .",
    "In {YEAR} , {PER} joined {ORG} as {ROLE} .",
    "The road runs from {LOC} to {LOC} along the coast .",
    "{PER} and {PER} met at a conference in {LOC} organised by {ORG} .",
    "When {PER} , whose {RELATIVE} had founded {ORG} , returned to {LOC} , the family business was "
    "already gone .",
    "Police in {LOC} {SAY} that a man had stolen a {PRODUCT} from a shop on {DAY} .",
    "{ORG} {SAY} on {DAY} that its new {PRODUCT} would cost {NUM} hundred dollars .",
    "The {NOUN} , which {ORG} published after a long investigation in {LOC} , blamed {PER} .",
    "{PER} has lived in {LOC} since {YEAR} .",
    "We drove from {LOC} to {LOC} and stayed with {PER} for {NUM} days .",
    "The {NOUN} between {ORG} and {ORG} was approved by regulators in {LOC} .",
    "{PER} told reporters in {LOC} that {ORG} had made a serious mistake .",
    "Fans of the {PRODUCT} lined up outside the store in {LOC} before dawn .",
    "Although {PER} had never been to {LOC} , the book describes the city as if its author had "
    "grown up there .",
    "The museum in {LOC} received a large gift from {PER} in {MONTH} .",
    "{ORG} hired {PER} , who had previously run the {LOC} office of {ORG} .",
    "Thousands of people gathered in {LOC} to hear {PER} speak .",
    "The {PRODUCT} , which {ORG} introduced in {YEAR} , is still popular in {LOC} .",
    "{PER} studied at {ORG} before moving to {LOC} .",
    "My {RELATIVE} works for {ORG} in {LOC} .",
    "Did {PER} really say that about {ORG} ?",
    "The flight from {LOC} to {LOC} was delayed for {NUM} hours .",
    "The new stadium in {LOC} was paid for by {ORG} .",
    "{PER} {SAY} that the most beautiful city in the world is {LOC} .",
    "Everyone at {ORG} knew that {PER} , not {PER} , would get the job .",
    "The company that {PER} founded in {LOC} in {YEAR} now competes with {ORG} .",
    "{PER} reviewed the {PRODUCT} and called it the best phone of the year .",
    "A {ROLE} from {ORG} {SAY} that the {PRODUCT} had been tested in {LOC} for {NUM} months .",
    "The man who {PER} said had stolen the {PRODUCT} from the hotel in {LOC} was later arrested .",
    "Before the {NOUN} collapsed , {ORG} and {ORG} had spent {NUM} months negotiating in {LOC} .",
    "{PER} , the {RELATIVE} of {PER} , runs a small bakery in {LOC} .",
    "Why did {ORG} move its headquarters from {LOC} to {LOC} ?",
    # Non-entity readings of ambiguous words, mixed with entities.
    "{PER} ate an apple and a slice of bread before the meeting in {LOC} .",
    "{PER} cut an apple in half and gave it to {PER} .",
    "The archers in {LOC} kept missing the target because of the wind .",
    "{ORG} missed its sales target again , {PER} {SAY} .",
    "We collected shells on the beach near {LOC} .",
    "A jaguar was spotted near a village outside {LOC} .",
    "Our boat crossed the river delta at dawn , {NUM} miles south of {LOC} .",
    "{PER} opened the windows to let some fresh air into the office .",
    "There is a wide gap between the rich and the poor in {LOC} , {PER} {SAY} .",
    "The old oracle told the king that he would lose the war .",
    "{PER} painted the kitchen orange and the hallway green .",
)

T = TypeVar("T")

_ENTITY_SLOTS = ("PER", "LOC", "ORG", "PRODUCT")

# ---------------------------------------------------------------------------------------------
# Sentiment vocabulary (classification). Adjectives carry polarity; templates decide whether the
# sentence keeps it ({same}) or contradicts it ({opp}), so the same word occurs under both labels.
# ---------------------------------------------------------------------------------------------

POSITIVE = "positive"
NEGATIVE = "negative"
LABELS: tuple[str, ...] = (NEGATIVE, POSITIVE)

ADJECTIVES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    POSITIVE: (
        ("good", "great", "excellent", "wonderful", "pleasant", "lovely", "fantastic", "impressive",
         "enjoyable", "charming", "beautiful", "perfect"),
        ("superb", "splendid", "marvelous", "terrific", "outstanding", "exquisite", "delightful",
         "remarkable", "stunning", "magnificent", "brilliant", "fabulous"),
    ),
    NEGATIVE: (
        ("bad", "terrible", "awful", "boring", "poor", "disappointing", "dull", "horrible", "weak",
         "annoying", "unpleasant", "ugly"),
        ("dreadful", "mediocre", "abysmal", "atrocious", "lousy", "tedious", "appalling", "miserable",
         "dismal", "shoddy", "bland", "pathetic"),
    ),
}  # fmt: skip


@dataclass(frozen=True)
class _Domain:
    """What is reviewed, the verb phrase for having tried it, and its aspects (seen, held-out)."""

    item: str
    tried: str
    aspects: tuple[str, ...]
    held_aspects: tuple[str, ...]


DOMAINS = (
    _Domain("film", "seen", ("plot", "acting", "ending", "soundtrack", "dialogue", "script"),
            ("cinematography", "screenplay", "pacing", "choreography")),
    _Domain("restaurant", "eaten at", ("food", "service", "dessert", "pasta", "soup", "wine"),
            ("steak", "risotto", "lasagna", "ambience")),
    _Domain("hotel", "stayed at", ("room", "staff", "breakfast", "view", "bed", "pool"),
            ("lobby", "concierge", "balcony", "mattress")),
    _Domain("phone", "used", ("battery", "screen", "camera", "speaker", "keyboard"),
            ("touchscreen", "microphone", "charger", "headset")),
    _Domain("novel", "read", ("story", "writing", "main character", "ending", "prose"),
            ("narrator", "epilogue", "protagonist", "storyline")),
    _Domain("concert", "attended", ("band", "singer", "sound", "lighting", "venue"),
            ("drummer", "guitarist", "encore", "orchestra")),
)  # fmt: skip

PEOPLE = (
    "my friend", "my sister", "my brother", "a colleague of mine", "the critic at the local paper",
    "my neighbour", "my cousin", "my uncle",
)  # fmt: skip

# {same}/{same2}: adjective whose polarity equals the label; {opp}/{opp2}: the opposite polarity.
# Direct templates: the adjectives alone give the label (GloVe helps with unseen adjectives).
DIRECT_TEMPLATES = (
    "The {aspect} was {same}.",
    "The {aspect} was really {same}, and so was the {aspect2}.",
    "I expected the {aspect} to be {same}, and it was.",
    "It is easy to see why so many people found the {aspect} {same}.",
    "The {aspect} could hardly have been more {same}.",
    "The {aspect} of this {item} was {same} from start to finish.",
    "After everything I had read about this {item}, I was surprised that the {aspect} was so {same}.",
    "The {aspect}, which the reviews had described as {same}, really was {same2}.",
    "Everyone kept saying the {aspect} was {same}, and I agree.",
    "{Person} thought the {aspect} was {same}, and for once I have to agree.",
    "What surprised me most about this {item} was how {same} the {aspect} was.",
    "If you ask me, the {aspect} was {same} and the {aspect2} was even more {same2}.",
    "Having {tried} this {item} twice, I can tell you the {aspect} is {same}.",
    "{Person}, who had told me that the {aspect} would be {same}, was right.",
    "We found the {aspect} {same} and the {aspect2} {same2}.",
    "It was not the {aspect} but the {aspect2} that made this {item} so {same}.",
    "Overall, the {aspect} was {same}, and I would say the same about the {aspect2}.",
)
# Context-dependent templates: negation, contrast or a reported opinion flips or overrides the
# polarity of the adjectives, so the same words occur under both labels.
CONTEXT_TEMPLATES = (
    "The {aspect} was not {opp} at all.",
    "Honestly, the {aspect} of this {item} was not {opp}.",
    "The {aspect} was not {opp}, and the {aspect2} was not {opp2} either.",
    "Although the {aspect} was {opp}, the {aspect2} was {same}.",
    "The {aspect} was {opp}, but the {aspect2} was {same}.",
    "The {aspect} was {same}, even though the {aspect2} was a bit {opp}.",
    "{Person}, who had told me that the {aspect} would be {opp}, was completely wrong.",
    "I expected the {aspect} to be {opp}, but it turned out to be {same}.",
    "There was nothing {opp} about the {aspect}.",
    "The {aspect} of this {item} was anything but {opp}.",
    "{Opp} is the last word I would use for the {aspect} of this {item}.",
    "I would not say that the {aspect} was {opp}.",
    "Nobody who has {tried} this {item} could honestly call the {aspect} {opp}.",
    "It is hard to believe that anyone found the {aspect} {opp}.",
    "Not only was the {aspect} {same}, but the {aspect2} was {same2} as well.",
    "Neither the {aspect} nor the {aspect2} was {opp}.",
    "The {aspect}, which the reviews had described as {opp}, was in fact {same}.",
    "I did not find the {aspect} {opp} in the slightest.",
    "Far from being {opp}, the {aspect} was {same}.",
    "Even the {aspect}, which I usually find {opp}, was {same} this time.",
    "I cannot say the {aspect} was {opp}.",
    "Everyone kept saying the {aspect} was {opp}, but I disagree.",
    "{Person} thought the {aspect} was {opp}, but I could not disagree more.",
    "Whoever said the {aspect} was {opp} must have {tried} a different {item}.",
    "The {aspect} was {opp} at first, but by the end it was {same}.",
    "I would call the {aspect} {same} rather than {opp}.",
    "The {aspect} that {person} had warned me about was not {opp} in the end.",
)
CLASSIFY_TEMPLATES = DIRECT_TEMPLATES + CONTEXT_TEMPLATES
# Share of items from CONTEXT_TEMPLATES: half, so adjectives alone leave about a quarter of the
# items wrong and only a model that reads context can get them right.
CONTEXT_RATE = 0.5


# ---------------------------------------------------------------------------------------------
# Sentence pairs (paraphrase or not). Each item states one event twice: the second sentence says
# the same in other words (passive voice, a synonym, the converse verb, the indirect object moved)
# or says something else in nearly the same words (the roles swapped, the converse verb kept with
# the same roles, a negation, another person or object). So word overlap alone misleads both
# ways and the label depends on who did what to whom: on word order and the other sentence.
# ---------------------------------------------------------------------------------------------

PARAPHRASE = "paraphrase"
DIFFERENT = "different"
PAIR_LABELS: tuple[str, ...] = (DIFFERENT, PARAPHRASE)
PAIR_SIZES: dict[str, int] = {"train": 480, "dev": 120, "test": 160}
PAIR_SEED_OFFSET = 32  # the pairs' generator is seeded with seed + this (issue 32)


@dataclass(frozen=True)
class _Action:
    """A transitive verb: base, past and participle forms, and synonyms (past, participle) seen in
    training or held out for dev and test."""

    base: str
    past: str
    participle: str
    synonyms: tuple[tuple[str, str], ...]
    held: tuple[tuple[str, str], ...]


ACTIONS = (
    _Action("praise", "praised", "praised", (("complimented", "complimented"),), (("commended", "commended"),)),
    _Action("criticize", "criticized", "criticized", (("condemned", "condemned"),), (("denounced", "denounced"),)),
    _Action("help", "helped", "helped", (("assisted", "assisted"),), (("aided", "aided"),)),
    _Action("hire", "hired", "hired", (("recruited", "recruited"),), (("employed", "employed"),)),
    _Action("call", "called", "called", (("phoned", "phoned"),), (("telephoned", "telephoned"),)),
    _Action("beat", "beat", "beaten", (("defeated", "defeated"),), (("outplayed", "outplayed"),)),
    _Action("interview", "interviewed", "interviewed", (("questioned", "questioned"),), (("quizzed", "quizzed"),)),
    _Action("warn", "warned", "warned", (("cautioned", "cautioned"),), (("alerted", "alerted"),)),
    _Action("fire", "fired", "fired", (("dismissed", "dismissed"),), (("sacked", "sacked"),)),
    _Action("support", "supported", "supported", (("backed", "backed"),), (("endorsed", "endorsed"),)),
)  # fmt: skip
# A transfer and its converse: "X sold the car to Y" means "Y bought the car from X".
TRANSFERS = (
    (("sell", "sold", "sold", "to"), ("buy", "bought", "bought", "from")),
    (("lend", "lent", "lent", "to"), ("borrow", "borrowed", "borrowed", "from")),
    (("give", "gave", "given", "to"), ("receive", "received", "received", "from")),
)
OBJECTS_SEEN = (
    "car", "house", "bike", "laptop", "painting", "boat", "piano", "camera", "watch", "phone",
    "ticket", "book", "lamp", "desk", "horse", "tent",
)  # fmt: skip
OBJECTS_HELD = ("guitar", "tractor", "violin", "sofa", "kayak", "telescope", "scooter", "microscope")
# A time phrase and one that means the same.
TIMES = (
    ("last week", "a week ago"),
    ("this morning", "earlier this morning"),
    ("on Monday", "on Monday"),
    ("last year", "a year ago"),
    ("in March", "in March"),
    ("on Friday evening", "on Friday evening"),
)
# How the second sentence of a pair is made (drawn with these weights).
PARAPHRASE_KINDS = (("passive", 3), ("synonym", 3), ("fronted", 2), ("converse", 3), ("dative", 2))
DIFFERENT_KINDS = (
    ("swap", 3),
    ("swap_passive", 2),
    ("mismatch", 2),
    ("negation", 2),
    ("other", 2),
    ("unrelated", 2),
)


# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NerSentence:
    """One tagged sentence: tokens and their IOB2 tags."""

    tokens: tuple[str, ...]
    tags: tuple[str, ...]


@dataclass(frozen=True)
class ClassifyItem:
    """One sentiment item: raw text (normal casing and punctuation) and its label."""

    text: str
    label: str


@dataclass(frozen=True)
class DemoData:
    """The corpora (NER, sentiment, sentence pairs), keyed by split name ("train", "dev", "test")."""

    ner: dict[str, list[NerSentence]]
    classify: dict[str, list[ClassifyItem]]
    seed: int
    pair: dict[str, list[PairItem]] = field(default_factory=dict)


def _pick(rng: random.Random, seen: Sequence[str], held: Sequence[str], heldout_rate: float) -> str:
    """A filler from the held-out pool with probability ``heldout_rate`` (0 for training)."""
    return rng.choice(held) if rng.random() < heldout_rate else rng.choice(seen)


def _person(rng: random.Random, heldout_rate: float) -> str:
    """A person mention; in training a quarter are famous or bare surnames that are also places or firms."""
    if rng.random() < heldout_rate:
        if rng.random() < 0.8:
            return f"{rng.choice(FIRST_HELD)} {rng.choice(LAST_HELD)}"
        return rng.choice(LAST_HELD)
    draw = rng.random()
    if draw < 0.15:
        return rng.choice(PER_FAMOUS)
    if draw < 0.27:
        return rng.choice(SURNAME_AMBIGUOUS)
    if draw < 0.42:
        return f"{rng.choice(FIRST_AMBIGUOUS)} {rng.choice(LAST_SEEN)}"
    if draw < 0.52:
        return rng.choice(LAST_SEEN)
    return f"{rng.choice(FIRST_SEEN)} {rng.choice(LAST_SEEN)}"


_ENTITY_POOLS = {
    "LOC": (LOC_SEEN, LOC_AMBIGUOUS, LOC_HELD),
    "ORG": (ORG_SEEN, ORG_AMBIGUOUS, ORG_HELD),
    "PRODUCT": (PRODUCT_SEEN, PRODUCT_AMBIGUOUS, PRODUCT_HELD),
}


def _entity(rng: random.Random, kind: str, heldout_rate: float) -> str:
    """An entity mention of ``kind``: held-out (unseen), ambiguous, or plain seen."""
    if kind == "PER":
        return _person(rng, heldout_rate)
    seen, ambiguous, held = _ENTITY_POOLS[kind]
    if rng.random() < heldout_rate:
        return rng.choice(held)
    return rng.choice(ambiguous) if rng.random() < AMBIGUOUS_RATE else rng.choice(seen)


def _ner_sentence(
    rng: random.Random, template: str, heldout_entity: float, heldout_filler: float
) -> NerSentence:
    tokens: list[str] = []
    tags: list[str] = []
    for piece in template.split(" "):
        if piece.startswith("{") and piece.endswith("}"):
            slot = piece[1:-1]
            if slot in _ENTITY_SLOTS:
                words = _entity(rng, slot, heldout_entity).split(" ")
                tokens.extend(words)
                tags.extend([f"B-{slot}"] + [f"I-{slot}"] * (len(words) - 1))
            else:
                seen, held = NER_FILLERS[slot]
                words = _pick(rng, seen, held, heldout_filler).split(" ")
                tokens.extend(words)
                tags.extend(["O"] * len(words))
        else:
            tokens.append(piece)
            tags.append("O")
    return NerSentence(tuple(tokens), tuple(tags))


def _adjective(rng: random.Random, polarity: str, heldout_rate: float, avoid: str = "") -> str:
    seen, held = ADJECTIVES[polarity]
    while True:
        word = _pick(rng, seen, held, heldout_rate)
        if word != avoid:
            return word


def _classify_item(rng: random.Random, template: str, label: str, heldout: float) -> ClassifyItem:
    """Fill ``template`` so that it means ``label``: the label is drawn first, the words follow it."""
    domain = rng.choice(DOMAINS)
    opposite = POSITIVE if label == NEGATIVE else NEGATIVE
    aspect = _pick(rng, domain.aspects, domain.held_aspects, heldout * 0.6)
    aspect2 = aspect
    while aspect2 == aspect:
        aspect2 = _pick(rng, domain.aspects, domain.held_aspects, heldout * 0.6)
    same = _adjective(rng, label, heldout)
    opp = _adjective(rng, opposite, heldout)
    person = rng.choice(PEOPLE)
    text = template.format(
        aspect=aspect,
        aspect2=aspect2,
        item=domain.item,
        tried=domain.tried,
        same=same,
        same2=_adjective(rng, label, heldout, avoid=same),
        opp=opp,
        Opp=opp.capitalize(),
        opp2=_adjective(rng, opposite, heldout, avoid=opp),
        person=person,
        Person=person[0].upper() + person[1:],
    )
    return ClassifyItem(text, label)


def _classify_template(rng: random.Random) -> str:
    return rng.choice(CONTEXT_TEMPLATES if rng.random() < CONTEXT_RATE else DIRECT_TEMPLATES)


def _draw_unique(make: Callable[[], T], key: Callable[[T], Hashable], taken: set[Hashable]) -> T:
    """The first item from ``make()`` whose key is not yet taken: no duplicates within or across splits."""
    while True:
        item = make()
        if key(item) not in taken:
            taken.add(key(item))
            return item


@dataclass(frozen=True)
class PairItem:
    """One sentence pair and its label; ``kind`` says how the second sentence was made (not written)."""

    sentence1: str
    sentence2: str
    label: str
    kind: str


def _weighted(rng: random.Random, kinds: tuple[tuple[str, int], ...]) -> str:
    return rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]


def _people(rng: random.Random, n: int, heldout: float) -> list[str]:
    """``n`` different first names, each from the held-out pool with probability ``heldout``."""
    names: list[str] = []
    while len(names) < n:
        name = _pick(rng, FIRST_SEEN, FIRST_HELD, heldout)
        if name not in names:
            names.append(name)
    return names


def _synonym(rng: random.Random, action: _Action, heldout: float) -> str:
    """The past form of a synonym of ``action`` (held out with probability ``heldout``)."""
    return _pick(rng, action.synonyms, action.held, heldout)[0]


def _action_pair(rng: random.Random, kind: str, heldout: float) -> tuple[str, str]:
    a, b, c = _people(rng, 3, heldout)
    act = rng.choice(ACTIONS)
    time, same_time = rng.choice(TIMES)
    time2 = rng.choice((time, same_time))
    first = f"{a} {act.past} {b} {time}."
    second = {
        "passive": f"{b} was {act.participle} by {a} {time2}.",
        "synonym": f"{a} {_synonym(rng, act, heldout)} {b} {time2}.",
        "fronted": f"{time2[0].upper()}{time2[1:]}, {a} {_synonym(rng, act, heldout)} {b}.",
        "swap": f"{b} {act.past} {a} {time}.",
        "swap_passive": f"{a} was {act.participle} by {b} {time}.",
        "negation": f"{a} did not {act.base} {b} {time}.",
        "other": f"{a} {act.past} {c} {time}.",
    }[kind]
    return first, second


def _transfer_pair(rng: random.Random, kind: str, heldout: float) -> tuple[str, str]:
    x, y = _people(rng, 2, heldout)
    (base, past, participle, prep), (_, conv_past, _, conv_prep) = rng.choice(TRANSFERS)
    thing = _pick(rng, OBJECTS_SEEN, OBJECTS_HELD, heldout)
    other = thing
    while other == thing:
        other = _pick(rng, OBJECTS_SEEN, OBJECTS_HELD, heldout)
    time, same_time = rng.choice(TIMES)
    time2 = rng.choice((time, same_time))
    first = f"{x} {past} the {thing} {prep} {y} {time}."
    second = {
        "passive": f"The {thing} was {participle} {prep} {y} by {x} {time2}.",
        "converse": f"{y} {conv_past} the {thing} {conv_prep} {x} {time2}.",
        "dative": f"{x} {past} {y} the {thing} {time2}.",
        "swap": f"{y} {past} the {thing} {prep} {x} {time}.",
        "mismatch": f"{x} {conv_past} the {thing} {conv_prep} {y} {time}.",
        "negation": f"{x} did not {base} the {thing} {prep} {y} {time}.",
        "other": f"{x} {past} the {other} {prep} {y} {time}.",
    }[kind]
    return first, second


_ACTION_KINDS = frozenset({"passive", "synonym", "fronted", "swap", "swap_passive", "negation", "other"})
_TRANSFER_KINDS = frozenset({"passive", "converse", "dative", "swap", "mismatch", "negation", "other"})


def _pair_item(rng: random.Random, label: str, heldout: float) -> PairItem:
    """A pair meaning ``label``: the label is drawn first, then how the second sentence is made."""
    kind = _weighted(rng, PARAPHRASE_KINDS if label == PARAPHRASE else DIFFERENT_KINDS)
    if kind == "unrelated":  # two events that share at most a name: the easy negatives
        first = _action_pair(rng, "other", heldout)[0]
        second = _transfer_pair(rng, "other", heldout)[0]
        return PairItem(first, second, label, kind)
    use_action = kind in _ACTION_KINDS and (kind not in _TRANSFER_KINDS or rng.random() < 0.5)
    first, second = (_action_pair if use_action else _transfer_pair)(rng, kind, heldout)
    return PairItem(first, second, label, kind)


def _pairs(rng: random.Random, sizes: dict[str, int]) -> dict[str, list[PairItem]]:
    """Balanced pairs per split, none repeated within or across splits; dev/test use held-out words."""
    taken: set[Hashable] = set()
    out: dict[str, list[PairItem]] = {}
    for split in SPLITS:
        heldout = 0.0 if split == "train" else HELDOUT_ENTITY_RATE
        labels = [PAIR_LABELS[i % len(PAIR_LABELS)] for i in range(sizes[split])]
        rng.shuffle(labels)
        out[split] = [
            _draw_unique(
                lambda label=label, h=heldout: _pair_item(rng, label, h),
                key=lambda item: (item.sentence1.lower(), item.sentence2.lower()),
                taken=taken,
            )
            for label in labels
        ]
    return out


def generate(seed: int = SEED, sizes: dict[str, int] | None = None) -> DemoData:
    """All corpora for all splits; the same ``seed`` always gives the same data (``sizes``: every corpus's,
    default :data:`SIZES`, and :data:`PAIR_SIZES` for pairs)."""
    sizes = sizes or SIZES
    rng = random.Random(seed)
    ner: dict[str, list[NerSentence]] = {}
    classify: dict[str, list[ClassifyItem]] = {}
    taken_sentences: set[Hashable] = set()
    taken_texts: set[Hashable] = set()
    for split in SPLITS:
        entity_rate = 0.0 if split == "train" else HELDOUT_ENTITY_RATE
        filler_rate = 0.0 if split == "train" else HELDOUT_FILLER_RATE
        ner[split] = [
            _draw_unique(
                lambda e=entity_rate, f=filler_rate: _ner_sentence(rng, rng.choice(NER_TEMPLATES), e, f),
                key=lambda sentence: sentence.tokens,
                taken=taken_sentences,
            )
            for _ in range(sizes[split])
        ]
        # Exactly balanced labels in shuffled order.
        labels = [LABELS[i % len(LABELS)] for i in range(sizes[split])]
        rng.shuffle(labels)
        classify[split] = [
            _draw_unique(
                lambda label=label, f=filler_rate: _classify_item(rng, _classify_template(rng), label, f),
                key=lambda item: item.text.lower(),
                taken=taken_texts,
            )
            for label in labels
        ]
    # Pairs draw from a generator of their own, so adding them left the other corpora's bytes as they were.
    pair = _pairs(random.Random(seed + PAIR_SEED_OFFSET), sizes if sizes is not SIZES else PAIR_SIZES)
    return DemoData(ner=ner, classify=classify, seed=seed, pair=pair)


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def _conll(sentences: Sequence[NerSentence]) -> str:
    blocks = [
        "\n".join(f"{tok}\t{tag}" for tok, tag in zip(s.tokens, s.tags, strict=True)) for s in sentences
    ]
    return "\n\n".join(blocks) + "\n"


def _csv(items: Sequence[ClassifyItem]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["text", "label"])
    writer.writerows([item.text, item.label] for item in items)
    return buffer.getvalue()


def _pair_tsv(items: Sequence[PairItem]) -> str:
    """GLUE-style TSV: a ``sentence1, sentence2, label`` header, one pair per line (no tabs or quotes inside)."""
    lines = ["sentence1\tsentence2\tlabel"]
    lines += [f"{item.sentence1}\t{item.sentence2}\t{item.label}" for item in items]
    return "\n".join(lines) + "\n"


def pair_overlap(item: PairItem) -> float:
    """Share of the second sentence's distinct words (lowercased) that also occur in the first."""
    first = {w.lower() for w in _words(item.sentence1)}
    second = {w.lower() for w in _words(item.sentence2)}
    return len(first & second) / len(second)


def _pair_stats(data: DemoData) -> dict[str, str]:
    """The pair corpus's numbers quoted in the README."""
    train = data.pair["train"]
    by_label = {label: [pair_overlap(i) for i in train if i.label == label] for label in PAIR_LABELS}
    train_words = {w.lower() for i in train for w in _words(f"{i.sentence1} {i.sentence2}")}
    test = data.pair["test"]
    unseen = sum(
        any(w.lower() not in train_words for w in _words(f"{i.sentence1} {i.sentence2}")) for i in test
    )
    different = by_label[DIFFERENT]
    return {
        "pair_sizes": " / ".join(str(len(data.pair[s])) for s in SPLITS),
        "pair_overlap_paraphrase": f"{sum(by_label[PARAPHRASE]) / len(by_label[PARAPHRASE]):.0%}",
        "pair_overlap_different": f"{sum(different) / len(different):.0%}",
        "pair_high_different": f"{sum(o >= 0.8 for o in different) / len(different):.0%}",
        "pair_unseen_share": f"{unseen / len(test):.0%}",
    }


def _stats(data: DemoData) -> dict[str, str]:
    """Numbers quoted in the README, computed from the data so the README cannot drift from it."""
    train_entities = _entity_strings(data.ner["train"])
    test_entities = _entity_strings(data.ner["test"])
    train_strings = {text for _, text in train_entities}
    test_strings = sorted({text for _, text in test_entities})
    unseen_share = sum(text not in train_strings for text in test_strings) / len(test_strings)
    labels_by_word: dict[str, set[str]] = {}
    for sentence in data.ner["train"]:
        for token, tag in zip(sentence.tokens, sentence.tags, strict=True):
            labels_by_word.setdefault(token.lower(), set()).add(tag[2:] if tag != "O" else "O")
    ambiguous = sorted(w for w, kinds in labels_by_word.items() if len(kinds - {"O"}) >= 2)
    plain_too = [
        w for w in _README_PLAIN_EXAMPLES if "O" in labels_by_word[w] and len(labels_by_word[w]) >= 2
    ]
    long_share = sum(len(e[1].split()) >= 3 for e in test_entities) / len(test_entities)
    tag_counts = Counter(kind for kind, _ in train_entities)
    train_words = {w.lower() for item in data.classify["train"] for w in _words(item.text)}
    test_items = data.classify["test"]
    with_unseen = sum(any(w.lower() not in train_words for w in _words(i.text)) for i in test_items)
    return {
        "ner_sizes": " / ".join(str(len(data.ner[s])) for s in SPLITS),
        "classify_sizes": " / ".join(str(len(data.classify[s])) for s in SPLITS),
        "entity_counts": ", ".join(f"{k} {tag_counts[k]}" for k in _ENTITY_SLOTS),
        "unseen_share": f"{unseen_share:.0%}",
        "n_ambiguous": str(len(ambiguous)),
        "plain_too": ", ".join(plain_too),
        "ambiguous_examples": ", ".join(w for w in ambiguous if w in _README_AMBIGUOUS_EXAMPLES),
        "long_share": f"{long_share:.0%}",
        "classify_unseen_share": f"{with_unseen / len(test_items):.0%}",
        "n_ner_templates": str(len(NER_TEMPLATES)),
        "n_classify_templates": str(len(CLASSIFY_TEMPLATES)),
        **_pair_stats(data),
    }


def _entity_strings(sentences: Sequence[NerSentence]) -> list[tuple[str, str]]:
    """(type, lowercased text) of every entity mention, read back from the IOB2 tags."""
    found: list[tuple[str, str]] = []
    for sentence in sentences:
        current: list[str] = []
        kind = ""
        for token, tag in [*zip(sentence.tokens, sentence.tags, strict=True), ("", "O")]:
            if tag.startswith("I-") and current:
                current.append(token)
                continue
            if current:
                found.append((kind, " ".join(current).lower()))
                current = []
            if tag.startswith("B-"):
                kind, current = tag[2:], [token]
    return found


def _words(text: str) -> list[str]:
    return [w.strip(".,?!") for w in text.split() if w.strip(".,?!")]


_README_PLAIN_EXAMPLES = ("apple", "target", "jaguar", "delta", "windows", "oracle")
_README_AMBIGUOUS_EXAMPLES = (
    "amazon",
    "apple",
    "ford",
    "georgia",
    "jordan",
    "lincoln",
    "paris",
    "washington",
)

README = """# Demo data

Small synthetic corpora for trying `advisor` on a laptop. Generated by
`python experiments/make_demo.py` (seed {seed}); do not edit by hand: a test checks that these
files equal the generator's output byte for byte.

| file | task | items (train / dev / test) | format |
|---|---|---|---|
| `ner_{{train,dev,test}}.conll` | NER: PER, LOC, ORG, PRODUCT in IOB2 | {ner_sizes} sentences | `token<TAB>tag`, blank line between sentences |
| `classify_{{train,dev,test}}.csv` | sentiment: `positive` / `negative`, balanced | {classify_sizes} items | CSV with header `text,label` |
| `pair_{{train,dev,test}}.tsv` | sentence pairs: `paraphrase` / `different`, balanced | {pair_sizes} pairs | TSV with header `sentence1<TAB>sentence2<TAB>label` |

Training entity mentions: {entity_counts}. The text comes from {n_ner_templates} NER and
{n_classify_templates} sentiment templates filled with real vocabulary, so it reads as natural
English. The sizes are chosen so that a demo grid (3 embeddings x ~4 training sizes x 2-3 seeds)
with a BiLSTM/CNN stays small on a CPU.

## Why it looks like this

The demo has to show random, GloVe and contextual embeddings *behaving differently* under the
same downstream model, so it plants the three properties that Arora et al. (ACL 2020) found to
decide when contextual embeddings are worth their cost:

- **Unseen words.** Dev and test draw most entities, and some filler words and adjectives, from
  held-out pools of real, common names, cities, companies and sentiment words that never occur
  in training: {unseen_share} of the distinct test entity strings are unseen in training, and
  {classify_unseen_share} of the test sentences contain a word absent from training. Random
  embeddings map every such word to one unknown vector; GloVe and the contextual encoder know them.
- **Ambiguity.** The same word takes different labels depending on context. In the NER training
  data {n_ambiguous} word types occur with at least two entity types, among them
  {ambiguous_examples} (George Washington / Washington, Michael Jordan / Jordan,
  Paris Hilton / Paris / Paris Saint Germain, Ford / Ford Mustang, ...), and
  {plain_too} are entities in some sentences and plain words in others.
  In the sentiment data about half the items come from context-dependent templates in which the
  adjectives flip with negation ("not bad at all"), lose to a contrasting main clause ("although
  the plot was dull, the acting was superb") or sit inside a reported opinion ("my friend, who
  had told me that the food would be awful, was completely wrong"), so the same adjectives occur
  under both labels.
- **Complex structure.** {long_share} of the test entity mentions span 3-5 tokens ("Federal
  Bureau of Investigation", "National Aeronautics and Space Administration", "Adobe Acrobat
  Reader"), and many sentences put a relative clause between a verb and its subject.

Everything is lowercase-safe (the encoders are uncased and GloVe is lowercase): no label depends
on capitalisation alone, although the files use normal casing.

## Sentence pairs

Each pair states one event twice (`advisor demo --task pair`). A `paraphrase` says it in other
words: the passive voice, a synonym, the converse verb ("Anna sold the car to Paul" / "Paul bought
the car from Anna"), the indirect object moved ("Anna sold Paul the car"). A `different` pair says
something else in nearly the same words: the roles swapped, the converse verb with the roles
kept, a negation, another person or object; a few are unrelated events. So word overlap misleads
both ways (mean share of the second sentence's words in the first: {pair_overlap_paraphrase} for
paraphrases, {pair_overlap_different} for different pairs, of which {pair_high_different} overlap
at least 80%), and the label depends on who did what to whom, which only word order and the other
sentence tell. Dev and test draw names, objects and synonyms from held-out pools:
{pair_unseen_share} of the test pairs contain a word absent from training.
"""


def write_demo(out_dir: Path = DEFAULT_OUT, seed: int = SEED) -> list[Path]:
    """Write the nine data files and README.md into ``out_dir``; returns the written paths."""
    data = generate(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    contents: dict[str, str] = {}
    for split in SPLITS:
        contents[f"ner_{split}.conll"] = _conll(data.ner[split])
        contents[f"classify_{split}.csv"] = _csv(data.classify[split])
        contents[f"pair_{split}.tsv"] = _pair_tsv(data.pair[split])
    contents["README.md"] = README.format(seed=seed, **_stats(data))
    written = []
    for name, text in contents.items():
        path = out_dir / name
        path.write_bytes(text.encode("utf-8"))
        written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED, help="random seed (default: %(default)s)")
    args = parser.parse_args(argv)
    for path in write_demo(args.out, args.seed):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
