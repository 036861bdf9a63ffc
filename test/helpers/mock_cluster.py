"""librdkafka's mock cluster (a Kafka-protocol broker for tests), kept alive by polling.

Run with Debian's /usr/bin/python3 (package python3-confluent-kafka). Prints one line
"BROKERS host:port,host:port,..." on stdout once the brokers listen, then polls until
stdin closes or SIGTERM.
"""
import signal
import sys
import threading

from confluent_kafka import Producer

brokers = int(sys.argv[1]) if len(sys.argv) > 1 else 3
p = Producer({'bootstrap.servers': 'x:1', 'test.mock.num.brokers': brokers})
md = p.list_topics(timeout=10)
addrs = ','.join(f'{b.host}:{b.port}' for b in md.brokers.values())
print(f'BROKERS {addrs}', flush=True)

stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
while not stop.is_set():
    p.poll(0.1)
