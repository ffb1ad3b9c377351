"""Fill a database with SAMPLE documents for benchmarks and demos.

Everything it makes is marked as sample data: registries named "Sample …"
with prefixes SLIT and SPRA, topics "Sample topic 01" to "Sample topic 28",
and titles that begin "[Sample]". It never touches the real record's rows.
"""

import random
from itertools import accumulate

from django.core.management.base import BaseCommand
from django.db.models import Max

from actions import filing
from actions.batch import DocumentWrite, DocumentWriter, bulk_change
from catalogue.citations import derived_authors
from catalogue.models import PUBLIC_STATUSES, Document, Registry, Topic
from imports import progress

REGISTRIES = [
    ("SLIT", "Sample reading list (generated sample data)"),
    ("SPRA", "Sample practice registry (generated sample data)"),
]
# What the audit trail says made the sample, which the server's rights make.
VIA = "generate_sample"
TOPIC_COUNT = 28
BATCH = 2000
SURNAMES = [
    "Chen",
    "Goyal",
    "Huang",
    "Jiang",
    "Zheng",
    "Narayanan",
    "Rajbhandari",
    "Shoeybi",
    "Li",
    "Wang",
    "Zhang",
    "Liu",
    "Smith",
    "Diskin",
    "Ryabinin",
    "Kairouz",
    "McMahan",
    "Stich",
    "Vogels",
    "Assran",
    "Afroz",
    "Jangda",
]
# Given names the sample's people take, with the surnames above: 440 names,
# so that namesakes meet, as in the record.
GIVEN_NAMES = [
    "Yang",
    "Wei",
    "Ana",
    "Tianqi",
    "Samyam",
    "Arthur",
    "Mei",
    "Olga",
    "Ravi",
    "Jun",
    "Lena",
    "Omar",
    "Sara",
    "Ivan",
    "Keith",
    "Nadia",
    "Hao",
    "Pablo",
    "Inès",
    "Tomás",
]
# Groups of people who write together; each sample document is by some of
# one group, one author in ten written with an initial alone.
GROUPS = 400
# The sample tags, one per word.
TAG_WORDS = [
    "scalable",
    "efficient",
    "distributed",
    "training",
    "inference",
    "sparse",
    "dense",
    "memory",
    "pipeline",
    "tensor",
    "parallelism",
    "optimizer",
    "gradient",
    "compression",
    "communication",
    "checkpointing",
    "attention",
    "transformer",
    "mixture",
    "experts",
    "federated",
    "robust",
    "asynchronous",
    "decentralised",
    "low-rank",
    "quantised",
    "benchmark",
    "evaluation",
]
# The words of sample text, most common first: the n-th is drawn with weight
# 1/n (Zipf's law, as in real abstracts), so a reader's search for a
# specific term matches a small share of the record, as it would in the real
# one, rather than nearly all of it.
VOCABULARY_TEXT = """
model training method data results performance approach network learning
large show models using neural time paper propose system deep accuracy
task tasks scale parallel parallelism memory compute efficient distributed workers
cost batch layer layers gradient across single set based framework new
optimization algorithm inference hardware throughput latency speedup
communication bandwidth cluster nodes devices accelerators GPUs TPUs
parameters weights activations tokens sequence attention transformer
language vision image speech benchmark evaluation baseline baselines
analysis study problem work previous existing better faster lower higher
convergence stochastic descent momentum adaptive learning-rate schedule
warmup loss objective regularisation generalisation overfitting dropout
normalisation embedding vocabulary decoder encoder pretraining fine-tuning
transfer multitask curriculum augmentation synthetic labels supervision
unsupervised self-supervised contrastive reinforcement policy reward agent
environment simulation robotics control planning search tree graph
message-passing recurrent convolutional residual skip connections pooling
kernel operator fusion compiler scheduling placement partitioning sharding
replication consistency fault tolerance recovery elastic preemption spot
checkpointing rematerialisation offloading swapping paging allocator
fragmentation pipeline bubble micro-batches stages interleaved tensor
sequence-parallel expert routing gating mixture experts load-balancing
capacity sparse dense pruning sparsity structured unstructured magnitude
lottery distillation teacher student compression quantisation quantised
low-precision mixed-precision bfloat16 fp8 int8 rounding error-feedback
sketching sparsification top-k signSGD all-reduce ring tree-reduce
parameter-server asynchronous stale staleness bounded synchronous
decentralised gossip consensus topology peer federated clients privacy
differential secure aggregation heterogeneity non-iid personalisation
robust byzantine poisoning backdoor adversarial certified verification
fairness bias calibration uncertainty bayesian ensembles variational
posterior prior sampling diffusion generative autoregressive flows
energy carbon power efficiency cost-model profiler simulator trace
workload characterisation datacenter serving batching caching kv-cache
speculative decoding beam retrieval augmented long-context positional
rotary alibi flash-attention linear-attention state-space recurrence
low-rank adapters lora prompt instruction alignment preference rlhf
reasoning chain-of-thought tools agents code mathematics theorem proving
scaling-laws compute-optimal data-mixture deduplication filtering tokenizer
multilingual translation summarisation question answering dialogue
"""
VOCABULARY = VOCABULARY_TEXT.split()
VENUES = ["OSDI ‘20", "(SoCC ‘25)", "— CoCoNet (ASPLOS 2022)", "NeurIPS 2023"]
STATUSES = (
    [Document.Status.ACTIVE] * 80
    + [Document.Status.SUPERSEDED] * 6
    + [Document.Status.WITHDRAWN] * 4
    + [Document.Status.DRAFT] * 6
    + [Document.Status.IN_REVIEW] * 4
)


class Command(BaseCommand):
    help = "Add N clearly marked SAMPLE documents (bulk inserts), for benchmarks."

    def add_arguments(self, parser):
        parser.add_argument("--documents", type=int, required=True)
        parser.add_argument("--seed", type=int, default=5)

    def handle(self, *args, documents, seed, **options):
        rng = random.Random(seed)
        # Authors come from a generator of their own: the other fields are
        # what they were before samples had author lists.
        self.authors_rng = random.Random(seed + 1)
        self.groups = sample_groups(self.authors_rng)
        with bulk_change(via=VIA):
            registries = [self.registry(prefix, name) for prefix, name in REGISTRIES]
            topics = self.topics()
            tags = [f"sample-{word}" for word in TAG_WORDS]
            with progress.bar("Generating documents", unit="documents"):
                made = self.documents(rng, documents, registries, topics, tags)
        self.stdout.write(f"Generated {made} SAMPLE documents (sample data only).")

    def registry(self, prefix, name):
        found = Registry.objects.filter(prefix=prefix).first()
        if found is not None:
            return found
        return filing.save(obj=Registry(prefix=prefix, name=name), user=None, via=VIA)

    def topics(self):
        last = Topic.objects.order_by("-position").first()
        position = last.position if last else 0
        topics = []
        for n in range(1, TOPIC_COUNT + 1):
            topic = Topic.objects.filter(slug=f"sample-topic-{n:02d}").first()
            if topic is None:
                position += 1
                topic = Topic(
                    name=f"Sample topic {n:02d}",
                    slug=f"sample-topic-{n:02d}",
                    scope="generated sample data, not part of the record",
                    flavour=Topic.Flavour.DOMAIN if n > 22 else Topic.Flavour.KIND,
                    position=position,
                )
                filing.save(obj=topic, user=None, via=VIA)
            topics.append(topic)
        return topics

    def documents(self, rng, count, registries, topics, tags):
        # One in ten sample documents is a practice; the rest are reading.
        next_number = {
            registry.pk: registry.documents.aggregate(n=Max("number"))["n"] or 0
            for registry in registries
        }
        writer = DocumentWriter(note="Sample data", via=VIA, history=True)
        with writer.staged():
            made = self.batches(
                rng, count, registries, topics, tags, writer, next_number
            )
        return made

    def batches(self, rng, count, registries, topics, tags, writer, next_number):
        """Stage ``count`` documents, ``BATCH`` at a time."""
        made = 0
        while made < count:
            batch = []
            for i in range(made, min(count, made + BATCH)):
                registry = registries[1] if i % 10 == 9 else registries[0]
                next_number[registry.pk] += 1
                document = self.document(
                    rng, registry, next_number[registry.pk], topics
                )
                batch.append(
                    DocumentWrite(document, tags=rng.sample(tags, rng.randint(0, 3)))
                )
            writer.create(batch)
            made += len(batch)
            progress.report(made, count)
        return made

    def document(self, rng, registry, number, topics):
        year = rng.randint(1995, 2026)
        kind = rng.random()
        if kind < 0.6:
            source = f"ARXIV-{year % 100:02d}{rng.randint(1, 12):02d}.{number:05d}"
        elif kind < 0.8:
            source = f"DOI:10.{rng.randint(1000, 9999)}/sample.{number}"
        else:
            source = ""
        other = f"{registry.prefix}-{rng.randint(1, max(number - 1, 1)):03d}"
        unfiled = number % 30 == 7  # So that even 50 documents have some.
        author_list = sample_authors(self.authors_rng, self.groups)
        return Document(
            registry=registry,
            number=number,
            version=rng.choice([1, 1, 1, 2, 2, 3, 4]),
            status=rng.choice(PUBLIC_STATUSES if unfiled else STATUSES),
            topic=None if unfiled else rng.choice(topics),
            title=f"[Sample] {words(rng, 7).capitalize()}",
            authors=derived_authors(author_list),
            author_list=author_list,
            year=year,
            source_identifier=source,
            citation_note=rng.choice(VENUES) if rng.random() < 0.2 else "",
            summary=(
                f"Sample summary: {words(rng, 14)}, measured at "
                f"{rng.randint(2, 64)}× the baseline — builds on {other}. "
                f"{words(rng, 22).capitalize()}."
            ),
        )


WEIGHTS = list(accumulate(1 / rank for rank in range(1, len(VOCABULARY) + 1)))


def sample_groups(rng):
    """``GROUPS`` groups of three to nine people, as CSL names."""
    people = [
        {"family": family, "given": given}
        for family in SURNAMES
        for given in GIVEN_NAMES
    ]
    return [rng.sample(people, rng.randint(3, 9)) for _ in range(GROUPS)]


def sample_authors(rng, groups):
    """One to six authors from one group, in an order of their own."""
    group = rng.choice(groups)
    authors = [
        dict(name) for name in rng.sample(group, min(len(group), rng.randint(1, 6)))
    ]
    for author in authors:
        if rng.random() < 0.1:
            author["given"] = f"{author['given'][0]}."
    return authors


def words(rng, n):
    """``n`` words of sample text, drawn by Zipf's law."""
    return " ".join(rng.choices(VOCABULARY, cum_weights=WEIGHTS, k=n))
