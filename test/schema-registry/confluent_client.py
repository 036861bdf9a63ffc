"""A bulk job written and read by Confluent's own Python clients (Debian's
python3-confluent-kafka: CachedSchemaRegistryClient, AvroProducer and AvroConsumer, with
python3-avro and python3-requests) against the project's Schema Registry and topics
(test/schema-registry/confluent-client.test.ts).

Usage: confluent_client.py BROKERS REGISTRY_URL TOPIC_PREFIX JOB SCHEMA_FILE TEXT...

1. Re-registers the language-ID request schema as Python's Avro library writes it, and
   once more with every object's keys reversed, under the subject the service registered
   it (`<prefix>.language-id.requests-value`): both must give the service's id.
2. Produces one request event per TEXT to `<prefix>.language-id.requests` with the
   headers of a bulk source (docs/kafka.md), replies to `<prefix>.corpus.<job>.results`.
3. Consumes the replies, decoding them with the schemas the registry gives by id.

Prints one JSON object: the ids, the subject's versions, and the decoded replies.
"""
import json
import sys
import time

import requests

from confluent_kafka import avro
from confluent_kafka.avro import AvroConsumer, AvroProducer
from confluent_kafka.avro.cached_schema_registry_client import CachedSchemaRegistryClient

brokers, registry_url, prefix, job, schema_file = sys.argv[1:6]
texts = sys.argv[6:]
subject = f'{prefix}.language-id.requests-value'
requests_topic = f'{prefix}.language-id.requests'
reply_topic = f'{prefix}.corpus.{job}.results'

registry = CachedSchemaRegistryClient({'url': registry_url})
service_id, _, _ = registry.get_latest_schema(subject)
request_schema = avro.load(schema_file)
python_id = registry.register(subject, request_schema)


def reversed_keys(o):
    if isinstance(o, dict):
        return {k: reversed_keys(o[k]) for k in reversed(list(o))}
    if isinstance(o, list):
        return [reversed_keys(x) for x in o]
    return o


reversed_id = registry.register(subject, avro.loads(json.dumps(reversed_keys(json.loads(str(request_schema))))))
versions = requests.get(f'{registry_url}/subjects/{subject}/versions', timeout=30).json()
types = requests.get(f'{registry_url}/schemas/types', timeout=30).json()

producer = AvroProducer({'bootstrap.servers': brokers, 'schema.registry.url': registry_url}, default_value_schema=request_schema)
# the reply topic, made by asking for its metadata (the broker creates topics it is asked
# about; librdkafka's mock cluster has no controller for CreateTopics)
if producer.list_topics(topic=reply_topic, timeout=30).topics[reply_topic].error is not None:
    raise SystemExit(f'cannot create {reply_topic}')
for i, text in enumerate(texts):
    headers = [('correlation-id', f'{job}:{i}'), ('reply-topic', reply_topic), ('request-id', job), ('item-index', str(i)),
               ('key-id', f'bulk:{job}'), ('model', 'lid-lite-608'), ('capability', 'language-id')]
    producer.produce(topic=requests_topic, value={'text': text, 'model': 'lid-lite-608', 'mode': 'coverage', 'topK': 2, 'candidates': None, 'echoText': True}, headers=headers)
producer.flush(30)

consumer = AvroConsumer({'bootstrap.servers': brokers, 'group.id': f'{job}-python', 'schema.registry.url': registry_url, 'auto.offset.reset': 'earliest'})
consumer.subscribe([reply_topic])
replies = []
end = time.time() + 240
while len(replies) < len(texts) and time.time() < end:
    m = consumer.poll(1)
    if m is None or m.error():
        continue
    replies.append({'headers': {k: v.decode() for k, v in (m.headers() or [])}, 'value': m.value()})
consumer.close()
print(json.dumps({'service_id': service_id, 'python_id': python_id, 'reversed_id': reversed_id, 'versions': versions, 'types': types, 'replies': replies}))
