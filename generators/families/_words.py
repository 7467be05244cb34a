"""Shared word data for the string families (anagram, ciphers, string manipulation).

``WORDS`` are common English words (lowercase, letters only) that a reader can be expected
to recognise, so an unscrambled or decoded answer is checkable by a human. ``AMBIGUITY_WORDS``
are extra words used only to *exclude* anagram candidates: a scramble of ``stop`` could also
be read as ``pots`` or ``tops``, so any word sharing its letters with one of these is never
asked. Both are plain tuples so iteration order is fixed.
"""

from __future__ import annotations

_RAW_WORDS = """
act add age ago aid aim air all and ant any ape arm art ask bad bag ban bar bat bay bed bee
beg bet bid big bin bit bow box boy bud bug bus but buy cab can cap car cat cow cry cub cup
cut dad day den dew did dig dim dog dot dry due dug ear eat egg ego elf elk end era eve eye
fan far fat fee few fig fin fit fix fly fog for fox fun fur gap gas gel gem get gift gum gun
gut guy ham has hat hay hen her hid him hip his hit hog hop hot how hub hug hum ice icy ill
ink inn jam jar jaw jet job jog joy jug key kid kin kit lab lad lap law lay leg let lid lip
log lot low mad man map mat may men met mix mob mop mud mug nap net new nod nor not now nut
oak odd off oil old one orb our out owl own pad pan paw pay pea pen pet pie pig pin pit pod
pop pot pub pun pup put rag ram ran rap raw ray red rib rid rim rip rob rod rot row rub rug
rum run rye sad sag sat saw say sea see set sew she shy sip sir sit six ski sky sly sob son
soy spa spy sub sum sun tab tag tan tap tax tea ten the tie tin tip toe ton too top toy try
tub tug two use van vat vet via vow wag war was wax way web wed wet who why wig win wit
wok won yak yam yes yet you zip zoo
able acid aged also area army away baby back bake ball band bank barn base bath bead beam
bean bear beat beef been bell belt bend best bike bill bird bite blow blue blur boat body
boil bold bolt bomb bond bone book boot born boss both bowl bulb bull burn bush busy cage
cake calf call calm camp card care cart case cash cave cell chat chef chin chip city clam
clay clip club clue coal coat code coin cold comb cook cool cope copy cord cork corn cost
crab crew crib crop crow cube cure curl dark dash data dawn deal dear debt deck deep deer
desk dial dice diet dirt dish dive dock doll dome door dose dove down drag draw drip drop
drum duck dull dune dust duty each earn east easy echo edge else envy epic even exam exit
face fact fade fail fair fall fame farm fast fate fear feed feel fern file film find fine
fire firm fish fist five flag flat flip flow foam fold folk food fool foot fork form fort
four free frog fuel full fund fuse gain game gate gear germ giant girl glad glow glue goal
goat gold golf good gown grab gray grew grid grin grip grow gulf hair half hall hand hang
hard harm harp have hawk head heal heap hear heat help herb herd here hero high hike hill
hint hold hole holy home hood hook hope horn host hour huge hunt hurt idea inch iron item
jazz joke jump jury just keen keep kick kind king kiss kite knee knit knot know lace lake
lamb lamp land lane last lava lawn lazy lead leaf lean left lend lens less life lift like
lime line link lion list load loaf loan lock loft long look loop lord loud love luck lung
made mail main make mall many mark mask mass mast math meal meat melt memo menu mild milk
mill mind mine mint miss mist moat mode mold mood moon moss most moth move much must myth
nail name navy near neat neck need nest news next nice nine node none noon norm nose note
okay once only open oval oven over pack page paid pain pair palm park part path peak pear
pile pine pink pipe plan play plot plug plum poem poet pole pond pony pool poor pork port
pose pour pray prey pull pump pure push quiz race rack raft rail rain rank rare rate read
real rent rest rice rich ride ring rise risk road roar robe rock role roll roof room root
rope rose ruby rule rush rust safe sage sail salt same sand seal seat seed seek self sell
send ship shoe shop shot show sick side sign silk sing sink size skin slim slow snow soap
sock soft soil sold sole song soon soup sour spin star stay stem step stew such suit sure
swan swim tail take tale talk tall tank tape task team tell tend tent term test text than
that then they thin tide tidy tile time tiny toad toll tomb tone tool tour town trap tray
tree trip true tube tuna tune turn twin type unit upon used user vast verb very view vote
wage wait wake walk wall wand warm wash wave weak wear week well west what when whip wide
wife wild will wind wine wing wire wise wish with wolf wood wool word work worm wrap yard
yarn year yell zero zone
about above actor adult after again agent agree alarm album alien alive alley allow alone
along amber amuse angel anger angle ankle apple apron arena armor arrow aside audio aunt
avoid awake award badge bagel baker basic basin beach beard beast begin being bench berry
bible birth black blade blame blank blast blaze blend blind block bloom board boast bonus
boost booth brain brake brand brass brave bread break brick bride brief bring broad brook
broom brown brush build bunch bunny cabin cable camel canal candy canoe cargo carol carry
catch cause chain chair chalk charm chart chase cheap check cheek cheer chess chest chief
child chill choir civic claim clean clear clerk click cliff climb clock close cloth cloud
clown coach coast cocoa color comet comic coral couch cough count court cover crane crash
crawl crazy cream crime crisp crowd crown cruel crumb crush curve cycle daily dairy daisy
dance delay depth diary dinner dough dozen draft drama dream dress drift drink drive eager
eagle early earth eight elbow elder empty enjoy enter entry equal error essay event every
exact exist extra fable faith false fancy feast fence ferry fever field fifty fight final
flame flash fleet flesh float flock flood floor flour fluid flute focus force forge forum
frame fresh front frost fruit funny gauge ghost glass globe glove grace grade grain grand
grape graph grass grave great greed green greet grill group guard guess guest guide habit
happy harsh heavy hedge hello hobby honey horse hotel house human humor hurry ideal image
index inner input irony issue ivory jelly jewel joint judge juice jumbo kayak kneel knife
knock label labor laser later laugh layer learn lemon level light limit linen liver local
lodge logic lucky lunar lunch magic major maple march match mayor medal media mercy merry
metal meter might minor mixer model money month moral motor mount mouse mouth movie muddy
music naval nerve never night noble noise north novel nurse ocean offer often olive onion
opera orbit order organ other otter ought ounce outer owner oxide paint panel panic paper
party pasta patch pause peace peach pearl pedal penny phase phone photo piano piece pilot
pinch pitch pizza place plain plane plant plate plaza point polar porch pound power press
price pride prime print prize proof proud prove pulse punch pupil puppy purse queen quick
quiet quilt quite quota radar radio rainy raise rally ranch range rapid raven razor ready
realm rebel relax relay reply rhyme rider ridge rifle right rigid rival river roast robot
rocky rough round route royal rugby ruler rural salad sauce scale scarf scene scent scout
screw seven shade shady shake shape share shark sharp sheep shelf shell shift shine shirt
shock shore short shout sight silly since skate skill skirt skull slate sleep slice slide
slope small smart smell smile smoke snack snake sneak solar solid solve sound south space
spare spark speak speed spell spend spice spike spine spoon sport spray squad stack staff
stage stair stake stamp stand steam steel steep stick stiff still stock stone stool storm
story stove straw strip study stuff style sugar sunny super sweet swing sword syrup table
taste teach thank theme thick thief thing think third thumb tiger toast today token tooth
topic torch total touch tough towel tower toxic track trade trail train trait treat trend
trial tribe trick truck truly trunk trust truth tulip tutor twice twist uncle under union
unity upper urban usual valid value valve vapor vault video vinyl virus visit vital vivid
vocal voice voter wagon waste watch water whale wheat wheel white whole width witch woman
world worry worth wound wrist write young youth zebra
absent access accuse across action active actual admire advice afford afraid agency almond
always amount anchor animal annual answer anyone anyway appear archer arctic arrive artist
asleep aspect assist attach attack attend autumn avenue bakery ballet bamboo banana banner
barrel basket battle beauty become before behave behind belong better beyond bishop blanket
bottle bottom bounce branch breath breeze bridge bright broken bronze bubble bucket budget
buffet bundle burden butter button cactus camera campus candle cannon canvas carbon career
carpet carrot castle casual cattle celery cellar cement center cereal chance change chapel
charge cheese cherry choice choose chorus church circle client clinic closet clover coffee
collar colony column combat comedy common cookie copper corner cotton county couple course
cousin cradle credit crisis critic cruise custom damage dancer danger debate decade decide
defeat defend degree demand desert design desire detail device devote dinner direct divide
doctor dollar domain donkey double dragon drawer driver during editor effect effort eighty
either eleven empire employ enable energy engine enough entire escape estate ethnic expert
export fabric factor family famous farmer father favor fellow figure finger finish flavor
flight flower follow forest forget formal fossil frozen future galaxy garage garden garlic
gather gentle ginger glance global golden gospel gossip govern ground growth guitar hammer
handle harbor health heaven height helmet hidden hockey honest hunger hunter impact import
income indoor infant injury insect inside intent invent island jacket jersey jungle junior
kettle kidney kitten ladder launch lawyer leader league legend lesson letter liquid little
lizard lobster locker lovely luxury magnet manner marble margin market master meadow medium
member memory mentor method middle minute mirror mobile modern moment monkey mostly mother
motion muffin museum mutual myself narrow nation nature nearby nickel nobody normal notice
number object obtain office online option orange orchid origin outfit oxygen oyster packet
palace parade parent parrot pencil people pepper permit person pickle pigeon planet plenty
pocket poetry poison police policy polish potato powder praise prefer priest prince prison
profit public puzzle rabbit racket random rather reader reason recipe record reform region
relief remote repair rescue result return reveal review reward ribbon riddle rocket rubber
saddle safety salmon sample saucer scheme school screen script season second secret select
senior series settle shadow shield shower signal silver simple singer sister sketch slogan
smooth soccer socket sodium spider spirit sponge spring square stable statue steady strain
stream street stress strict string stripe strong studio submit sudden summer summit supply
survey switch symbol system tablet talent target temple tenant tennis theory thirty thread
throat ticket timber tomato tongue toward travel treaty trophy tunnel turkey turtle twelve
unique unlock useful valley velvet vendor verify vessel victim viewer violin vision visual
volume voyage walnut wealth weapon weekly weight window winner winter wisdom wizard wonder
worker writer yellow
ability academy account address advance airline airport alcohol ancient anxiety anybody
apology arrival article athlete average balance balloon bandage baggage banking bargain
battery bedroom bicycle biology blanket brother buffalo cabinet caliber capital captain
caravan cartoon ceiling century ceramic certain chamber channel chapter charity chicken
chimney circuit citizen classic climate clothes cluster coastal college comfort command
compass complex concert conduct connect console contact content contest context control
convert correct cottage council counter country courage crystal cuisine culture curtain
cushion customer cycling deliver dentist desktop diamond digital dinosaur diploma discuss
disease display dolphin drawing eastern economy edition element elephant embassy emerald
emotion engineer episode evening example exhibit explain express extreme factory fashion
feather feeling festival fiction finance fishing fitness foreign fortune forward freedom
funeral furnace gallery garbage general genuine giraffe glacier gravity grocery habitat
haircut harvest healthy hearing heating helpful highway history holiday horizon hostile
housing hundred husband iceberg illness imagine improve include initial insight inspect
install instant journal journey justice kitchen knowledge landing lantern laundry leather
lecture library license lobster machine mammal manager mansion marathon mattress maximum
meaning measure medical message migrant million mineral minimum miracle mission mixture
monitor monster morning mystery natural network neutral nothing nowhere nucleus numeral
obvious octopus officer opinion orchard organic outdoor package painter painting panther
partner passage passion patient pattern payment penguin pension perfect picture pilgrim
pioneer plastic plateau pleasant popular portion postage poverty premium present prevent
primary printer privacy problem process produce product program project promise protect
protein publish pumpkin pyramid quality quarter railway rainbow reality receipt recover
regular release replace request reptile respect restore revenue romance rooster routine
sailing sandwich sausage scholar science scissors section segment serious service session
shelter sheriff shuttle silence similar sincere skeleton soldier speaker special sponsor
station stomach storage strange student subject success sunrise support surface surgeon
surgery surplus suspect sweater teacher texture theater thunder tobacco tonight tornado
tourism traffic trailer trouble tuition typical uniform unknown upgrade utility vacancy
vaccine variety vehicle venture version village vintage violent virtual volcano walking
warrior weather website wedding weekend welcome western whisper whistle witness wrestle
absolute academic accident activity addition adoption advocate aircraft alphabet ambition
anything appetite approval aquarium argument assembly athletic attitude audience backbone
backyard baseball bathroom birthday blizzard bookcase boundary bracelet building business
calendar campaign cardinal carnival category champion chemical chestnut children chipmunk
chocolate circular clothing collapse colorful complete computer concrete confused constant
creature criminal cucumber currency customer daughter deadline decision delivery designer
dialogue director disaster discount distance dramatic dumpling earnings election electric
elevator emperor employee engineer envelope equation evidence exercise external familiar
festival fireplace football fracture friendly frontier function gardener generous graphite
guardian handsome hardware headline heritage highland homework hospital humidity identity
incident industry infinite innocent interest internal invasion inventor judgment kangaroo
keyboard landlord language lavender learning lemonade lifetime location magazine majority
marathon material mechanic medicine merchant midnight military minister moisture molecule
momentum mountain multiple mushroom national neighbor notebook nutrition obstacle occasion
official operator opponent ordinary organism overcome painting pamphlet paradise parallel
password patience peaceful pedestal peninsula physical pineapple platform pleasure plumbing
politics position positive possible powerful practice pressure princess priority prisoner
producer progress property prospect provider province purchase question railroad reaction
receiver recovery relative religion remember research resident resource response restaurant
sandwich schedule scorpion sculpture security sentence sequence shoulder sidewalk skeleton
software solution sorrow squirrel standard stingray strategy strength struggle students
sunlight superior surprise swimming symphony tangerine teaspoon telegram telephone terminal
textbook thousand together tomorrow tortoise treasure triangle tropical umbrella universe
vacation valuable vanguard vegetable velocity vertical violence visitor vocabulary volunteer
whatever woodland workshop yourself
"""

_RAW_AMBIGUITY = """
act cat tac arc car art rat tar ate eat tea eta own now won tops stop pots spot post opts
evil vile live veil levi silent listen enlist tinsel inlets heart earth hater rathe
save vase aves dear read dare stale steal least slate tales teals tesla angel glean angle
below elbow bowel lemon melon night thing inch chin lived devil maple ample lamp palm
notes stone tones onset seton rose sore ores eros care race acre dog god fowl wolf
tale late teal meat team mate tame peach cheap cheat teach reap pear pare rape tab bat
secure rescue cruise curies sister resist master stream tamers danger garden ranged gander
listen tinsel cider cried dicer heart shore horse shoer reward drawer warder brag garb
lead deal dale laid dial lair liar rail rial mane name mean amen arm ram mar rats star
tars arts meal male lame peal leap plea pale mile lime emit time item mite smile limes
slime miles skate steak stake takes teaks paws swap wasp raw war pat tap apt pit tip
keen knee ocean canoe spit pits tips dusty study sword words drown wonder danger despair
diaper repaid paired tiger reign finger fringe thorn north ruby bury brush shrub
robe bore note tone thing sleep peels reef free loop pool polo stop tops tool loot
dusty study gods dogs lemons solemn melons lions loins nails slain snail lanes leans
ocean canoe prides spider priced credit direct triced reaction creation actor taro rota
ears sear eras ares rase arise raise aries ideal ailed petals plates staple pleats palest
stable tables bleats cheater teacher thicken kitchen hectare earnest eastern nearest
present serpent repents painter pertain repaint parental paternal prenatal marital martial
orchestra carthorse alerting altering integral relating triangle medical decimal claimed
discounter introduces reductions parsed drapes spared spread ladies sailed ideals aisled
dealt delta later alter alert taler ratel grater garret trail trial rental antler learnt
spear pears spare reaps parse pares rapes sword drawl ward draw bale able coat taco cato
tense teens wells sell state taste teats cart trace crate cater react recta caret
tacos coast costa cost cots scot below bowel elbow fired fried petal plate pleat leapt
gallery largely regally thread dearth hatred threads hardest trashed noted toned meteor
remote emoter nectar recant trance lemon demon monde moped ruined inured tuner runet
trade tread rated dater glare lager large regal range anger march charm chase aches early
layer relay skin sink inks break brake baker sweat waste mango among paint inapt rowdy wordy
smart trams marts times items mites emits smite shoe hose hoes toast stoat resin rinse risen
siren diet edit tide tied rock cork bake beak gum mug net ten pan nap nod don pot top opt saw
was tub but bus sub gas sag ape pea ant tan sale seal ales east seat teas eats fear fare keep
peek rope pore rule lure slip lips step pets pest nest sent tens nets part trap tarp snap pans
spin pins snip nips heat hate hare hear loin lion wand dawn bowl blow panel plane cinema iceman
mood doom sure user lime mile slow owls lows stew west wets tire tier rite vote veto room moor
pace cape rage gear mace came acme dose does odes ends send dens earn near rate tear ride dire
sole lose loot tool golf flog ring grin lump plum acts cast cats scat beat abet sign sing
calm clam coin icon silver sliver livers denial nailed angered enraged players parsley replays
salient entails restful fluster senator treason debit bidet forest foster softer emigrants
mastering admirer married dusty study lemons melons sword words being begin binge cruel ulcer
lucre mouse moues peach cheap heart earth hater ocean canoe shape phase heaps sword lemon
lowed dowel elbow bowel below evil live vile veil night thing thorn north
lead deal coats costa ascot tacos coast bread beard debar bared brake baker wolf fowl
flow arc car tale late teal meat team tame mate cheat teach scar arcs cars dawn wand drawer
reward warder tops spot pots stop post opts
"""


def _tokens(raw: str) -> tuple[str, ...]:
    """Unique lowercase alphabetic words in first-seen order (deterministic)."""
    seen: dict[str, None] = {}
    for token in raw.split():
        if token.isalpha() and token.islower():
            seen.setdefault(token, None)
    return tuple(seen)


WORDS: tuple[str, ...] = _tokens(_RAW_WORDS)
AMBIGUITY_WORDS: tuple[str, ...] = _tokens(_RAW_AMBIGUITY)


def _signature(word: str) -> str:
    return "".join(sorted(word))


def _unique_anagram_words() -> tuple[str, ...]:
    """Words of ``WORDS`` whose multiset of letters no other known word shares."""
    counts: dict[str, int] = {}
    for word in dict.fromkeys(WORDS + AMBIGUITY_WORDS):
        sig = _signature(word)
        counts[sig] = counts.get(sig, 0) + 1
    return tuple(w for w in WORDS if counts[_signature(w)] == 1 and len(set(w)) > 1)


UNIQUE_ANAGRAM_WORDS: tuple[str, ...] = _unique_anagram_words()
WORD_SET: frozenset[str] = frozenset(WORDS) | frozenset(AMBIGUITY_WORDS)


_BY_LENGTH: dict[tuple[int, int, int], tuple[tuple[str, ...], tuple[str, ...]]] = {}


def words_by_length(words: tuple[str, ...], low: int, high: int) -> tuple[str, ...]:
    """The words with ``low <= len(word) <= high``, in list order.

    Built once per (word list, low, high) and kept: families ask for their pool on every
    item. Keyed by the list's identity (hashing a long tuple per call would cost as much
    as the filter); the list itself is kept in the entry so the identity stays valid.
    """
    key = (id(words), low, high)
    cached = _BY_LENGTH.get(key)
    if cached is None or cached[0] is not words:
        cached = (words, tuple(w for w in words if low <= len(w) <= high))
        _BY_LENGTH[key] = cached
    return cached[1]


def signature(word: str) -> str:
    """Sorted letters: two words are anagrams iff their signatures are equal."""
    return _signature(word)
