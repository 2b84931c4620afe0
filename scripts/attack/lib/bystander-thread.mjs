// The bystander on a thread of its own: its event loop is not the attacker's, so the time the attack code
// itself spends (building a frame, parsing a huge answer) never counts as the server making it wait.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Bystander } from './bystander.mjs';

if (!isMainThread && workerData?.bystander) {
  const bystander = new Bystander(workerData.url, workerData.options);
  parentPort.on('message', async ({ id, op, arg }) => {
    try {
      parentPort.postMessage({ id, value: await bystander[op](arg) });
    } catch (error) {
      parentPort.postMessage({ id, error: error.message });
    }
  });
}

/** A {@link Bystander} in a worker thread, with the same methods (each returning a promise). */
export class BystanderThread {
  #worker;
  #calls = new Map();
  #next = 0;

  constructor(url, options) {
    this.#worker = new Worker(new URL(import.meta.url), { workerData: { bystander: true, url, options } });
    this.#worker.on('message', ({ id, value, error }) => {
      const call = this.#calls.get(id);
      this.#calls.delete(id);
      if (error === undefined) call?.resolve(value);
      else call?.reject(new Error(error));
    });
    this.#worker.on('error', (error) => {
      for (const call of this.#calls.values()) call.reject(error);
      this.#calls.clear();
    });
  }

  #call(op, arg) {
    const id = ++this.#next;
    return new Promise((resolve, reject) => {
      this.#calls.set(id, { resolve, reject });
      this.#worker.postMessage({ id, op, arg });
    });
  }

  open = () => this.#call('open');
  baseline = (ms) => this.#call('baseline', ms);
  start = () => this.#call('start');
  stop = () => this.#call('stop');
  memory = () => this.#call('memory');

  async close() {
    await this.#call('close').catch(() => undefined);
    await this.#worker.terminate();
  }
}
