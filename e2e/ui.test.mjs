// End-to-end: the story of a ConfigMap held by two finalizers, told through
// the page as a learner would click it, with a screenshot of each step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, startServer, launch, openApp, axeViolations } from './harness.mjs';

const SHOTS = join(ROOT, 'target/e2e-screenshots');
mkdirSync(SHOTS, { recursive: true });
let server, browser;

before(async () => {
  server = await startServer();
  browser = await launch();
});
after(async () => {
  await browser?.close();
  server?.stop();
});

async function kubectl(page, line, file = '') {
  await page.fill('#kubectl-file', file);
  await page.fill('#kubectl-line', line);
  await page.click('#kubectl-run');
  return (await page.textContent('#kubectl-output')) ?? '';
}

const laneEvents = (page) => page.locator('#lane-1-events .event');

test('finalizers, watch lanes, the inspector and a 410 on a late resume', async () => {
  const { page, errors } = await openApp(browser, server.url);
  const shot = (name) => page.screenshot({ path: join(SHOTS, name), fullPage: true });

  // 1. Create a ConfigMap with two finalizers from the command bar.
  const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: held\n  finalizers:\n  - example.com/one\n  - example.com/two\ndata:\n  k: v\n';
  assert.equal(await kubectl(page, 'kubectl create -f -', yaml), 'configmap/held created\n');
  await shot('01-created.png');

  // 2. A watch lane on configmaps: lists, then watches.
  await page.click('#lane-open');
  await page.waitForSelector('#lane-1-state:text("watching")');
  await page.waitForSelector('#lane-1-events .event.note:has-text("listed 2 items")');
  await shot('02-lane-open.png');

  // 3. Delete: the finalizers hold it, the lane gets MODIFIED with a deletionTimestamp.
  assert.equal(await kubectl(page, 'kubectl delete cm held'), 'configmap "held" deleted\n');
  // Its finalizers hold it: kubectl would keep waiting, and the page says so.
  assert.match(await page.textContent('#kubectl-differs'), /kubectl would keep waiting here until the object is gone/);
  const modified = page.locator('#lane-1-events .event.modified').last();
  await modified.waitFor();
  assert.match(await modified.textContent(), /deletionTimestamp=.*finalizers=\[example.com\/one, example.com\/two\]/);

  // 4. The inspector shows the terminating phase and the pending finalizers.
  await modified.click();
  await page.waitForSelector('.phase.on[data-phase="terminating"]');
  assert.equal(await page.locator('#finalizers li').count(), 2);
  // Field ownership: the command bar's create is recorded under kubectl-create.
  assert.match(await page.textContent('#ownership .fo-legend'), /kubectl-create\s*Update/);
  assert.match(await page.textContent('#ownership .fo-row[data-path=".data.k"]'), /kubectl-create/);
  await shot('03-terminating.png');

  // 5. Remove both finalizers with one click each: DELETED, and the removed phase.
  await page.click('.remove-finalizer[data-finalizer="example.com/one"]');
  await page.waitForSelector('#finalizers li >> nth=0 >> text=example.com/two');
  await page.click('.remove-finalizer[data-finalizer="example.com/two"]');
  await page.locator('#lane-1-events .event.deleted').last().waitFor();
  await page.waitForSelector('.phase.on[data-phase="removed"]');
  const patches = await page.locator('#log-list .logrow:has-text("PATCH")').count();
  assert.ok(patches >= 2, 'the finalizer removals are real PATCH requests in the log');
  await shot('04-removed.png');

  // 6. Stop the lane, write once more, move the clock past the history
  //    window: the resume from the lane's last resourceVersion gets 410.
  await page.click('#lane-1 .lane-stop');
  await page.waitForSelector('#lane-1-state:text("stopped")');
  assert.equal(await kubectl(page, 'kubectl create -f -', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: later\n'), 'configmap/later created\n');
  await page.click('#advance-5m');
  await page.click('#advance-1m');
  await page.click('#lane-1 .lane-resume');
  const gone = page.locator('#lane-1-events .event.error').last();
  await gone.waitFor();
  assert.match(await gone.textContent(), /410 Expired: too old resource version/);
  await shot('05-resume-410.png');
  // An informer-style lane lists again and goes on watching.
  await page.waitForSelector('#lane-1-state:text("watching")');

  // 7. The timeline: the node Leases' renewals in the jumps are hidden
  //    until asked for; then pick a compacted revision (scrolled to the
  //    oldest) and see the 410 of a list at it.
  const newest = () => page.textContent('#timeline-list .point >> nth=0');
  assert.doesNotMatch(await newest(), /update\s*Lease\//);
  assert.match(await page.textContent('label:has(#show-renewals)'), /show Lease renewals \([1-9]\d*\)/);
  await page.check('#show-renewals');
  await page.waitForFunction(() => /update\s*Lease\/kube-node-lease\//.test(document.querySelector('#timeline-list .point').textContent));
  await page.uncheck('#show-renewals');
  await page.$eval('#timeline-list', (el) => { el.scrollTop = el.scrollHeight; });
  await page.locator('#timeline-list .point.gone .rv').last().click();
  await page.waitForSelector('#snapshot .snap-row.bad');
  assert.match(await page.textContent('#snapshot'), /Expired/);
  await shot('06-timeline.png');
  assert.deepEqual(errors, []);
});

test('the session survives a reload, and object text is never HTML', async () => {
  const { page, context, errors } = await openApp(browser, server.url);
  assert.equal(await kubectl(page, 'kubectl create -f -', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keepme\n  annotations:\n    note: "<img src=x onerror=window.__xss=1>"\n'), 'configmap/keepme created\n');
  // The kubeconfig is saved too, without a write.
  assert.equal(await kubectl(page, 'kubectl config set-context --current --namespace=kube-system'), 'Context "kubesim" modified.\n');
  // Let the clock run past the last write: a reload must not take it back.
  await page.waitForTimeout(2500);
  const before = await page.textContent('.clock-now');
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  await page.waitForSelector('#notice:has-text("Restored")');
  const after = await page.textContent('.clock-now');
  assert.ok(after >= before, `the clock went back on reload: ${before} -> ${after}`);
  assert.equal(await kubectl(page, 'kubectl get deploy -o name'), 'deployment.apps/coredns\n');
  const out = await kubectl(page, 'kubectl get cm keepme -n default -o yaml');
  assert.match(out, /<img src=x onerror=window.__xss=1>/);
  assert.equal(await page.locator('#kubectl-output img').count(), 0);
  // Inspect it through a lane: the annotation is shown as text.
  await page.fill('#lane-query', 'fieldSelector=metadata.name%3Dkeepme');
  await page.uncheck('#lane-list-first');
  await page.click('#lane-open');
  await page.locator('.lane .event.added').first().click();
  await page.waitForSelector('#inspector-body:has-text("onerror")');
  assert.equal(await page.locator('#inspector-body img').count(), 0);
  assert.equal(await page.evaluate(() => window.__xss), undefined);
  await page.screenshot({ path: join(SHOTS, '07-restored.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a panic shows a banner and a restart that brings the cluster back', async () => {
  const { page, context } = await openApp(browser, server.url);
  await kubectl(page, 'kubectl create -f -', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: survivor\n');
  // What the top bar shows as saved comes back after the restart.
  await page.waitForSelector('#save-state.saved');
  await page.evaluate(() => { try { window.wasmBindings.kubesimPanicForTest(); } catch (e) { /* the trap */ } });
  await page.waitForSelector('#panic-banner');
  assert.match(await page.textContent('#panic-banner'), /asked for by kubesimPanicForTest/);
  await page.screenshot({ path: join(SHOTS, '08-panic.png') });
  await page.click('#panic-banner button');
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await kubectl(page, 'kubectl get cm survivor -o name'), 'configmap/survivor\n');
  await context.close();
});

test('export then import gives back the same cluster', async () => {
  const { page, context } = await openApp(browser, server.url);
  // reset asks first: declined, nothing happens; accepted, a new session.
  page.once('dialog', (d) => d.dismiss());
  await kubectl(page, 'kubectl create -f -', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kept\n');
  await page.click('#reset');
  assert.match(await kubectl(page, 'kubectl get cm kept -o name'), /configmap\/kept/);
  page.on('dialog', (d) => d.accept());
  await page.click('#reset');
  await kubectl(page, 'kubectl create -f -', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  generateName: exported-\n');
  const before = await kubectl(page, 'kubectl get cm -o json');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const file = await download.path();
  await page.click('#reset');
  assert.doesNotMatch(await kubectl(page, 'kubectl get cm -o name'), /exported-/);
  await page.setInputFiles('#import', file);
  await page.waitForSelector('#notice:has-text("Imported")');
  assert.equal(await kubectl(page, 'kubectl get cm -o json'), before);
  await context.close();
});

const cm = (name, data = '') => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${data}`;

test('a save the browser refuses is reported and the last good save kept; a second tab shows the saved session and saves nothing', async () => {
  const { page, context } = await openApp(browser, server.url);
  await kubectl(page, 'kubectl create -f -', cm('first'));
  await page.waitForSelector('#save-state.saved');
  // The browser refuses the next save (IndexedDB's put of a journal entry).
  await page.evaluate(() => {
    window.__put = IDBObjectStore.prototype.put;
    IDBObjectStore.prototype.put = function (v, k) {
      if (typeof k === 'number') throw new DOMException('the quota is exceeded', 'QuotaExceededError');
      return window.__put.call(this, v, k);
    };
  });
  await kubectl(page, 'kubectl create -f -', cm('second'));
  await page.waitForSelector('#save-error');
  assert.match(await page.textContent('#save-error'), /QuotaExceededError.*last save is intact/);
  assert.equal(await page.textContent('#save-state'), 'not saved');
  // (The row's mark may be drawn just after the error: wait for it.)
  await page.waitForSelector('#log-list .logrow:has-text("configmaps") .unsaved');
  assert.equal(await page.locator('#log-list .logrow:has-text("configmaps") .unsaved').count(), 1);
  await page.screenshot({ path: join(SHOTS, '09-quota.png') });
  // A second tab on the same session: it shows what was saved, and says
  // it saves nothing.
  const other = await context.newPage();
  await other.goto(server.url);
  await other.waitForSelector('body[data-ready="1"]');
  await other.waitForSelector('#read-only');
  assert.match(await other.textContent('#read-only'), /open in another tab/);
  assert.equal(await other.textContent('#save-state'), 'not saved in this tab');
  // (kubectl says which names were not found after what it found.)
  assert.equal(await kubectl(other, 'kubectl get cm first second -o name'), 'configmap/first\nError from server (NotFound): configmaps "second" not found\n');
  // The browser takes saves again: the next write saves both.
  await page.evaluate(() => { IDBObjectStore.prototype.put = window.__put; });
  await kubectl(page, 'kubectl label cm first a=b');
  await page.waitForSelector('#save-error', { state: 'detached' });
  await page.waitForSelector('#save-state.saved');
  assert.equal(await page.locator('#log-list .unsaved').count(), 0);
  await other.reload();
  await other.waitForSelector('#read-only');
  assert.equal(await kubectl(other, 'kubectl get cm -l a=b -o name'), 'configmap/first\n');
  assert.match(await kubectl(other, 'kubectl get cm second -o name'), /configmap\/second/);
  // A separate session in the second tab: its own, saved, kept on reload.
  await other.click('#separate-session');
  await other.waitForURL(/\?session=[0-9a-f]+$/);
  await other.waitForSelector('body[data-ready="1"]');
  assert.equal(await other.locator('#read-only').count(), 0);
  assert.match(await kubectl(other, 'kubectl get cm first -o name'), /NotFound/);
  await kubectl(other, 'kubectl create -f -', cm('apart'));
  await other.waitForSelector('#save-state.saved');
  await other.reload();
  await other.waitForSelector('#notice:has-text("Restored")');
  assert.equal(await kubectl(other, 'kubectl get cm apart -o name'), 'configmap/apart\n');
  assert.equal(await kubectl(page, 'kubectl get cm apart -o name'), 'Error from server (NotFound): configmaps "apart" not found\n');
  await context.close();
});

test('a session larger than localStorage holds survives a reload, and one saved there by an earlier version moves to IndexedDB', async () => {
  const { page, context } = await openApp(browser, server.url);
  // Ten ConfigMaps of ~900 KB: a 9 MB journal (localStorage holds 5 MB).
  const statuses = await page.evaluate(() => {
    const out = [];
    for (let i = 0; i < 10; i++) {
      const body = JSON.stringify({ metadata: { name: `big-${i}` }, data: { blob: String(i).repeat(900 * 1024) } });
      out.push(window.wasmBindings.kubesimRequest('POST', '/api/v1/namespaces/default/configmaps', body).status);
    }
    return out;
  });
  assert.deepEqual(statuses, Array(10).fill(201));
  await page.waitForSelector('#save-state.saved', { timeout: 20000 });
  const exported = await page.evaluate(() => window.wasmBindings.kubesimRequest('GET', '/api/v1/namespaces/default/configmaps').body);
  await page.reload();
  await page.waitForSelector('#notice:has-text("Restored")', { timeout: 20000 });
  const restored = await page.evaluate(() => window.wasmBindings.kubesimRequest('GET', '/api/v1/namespaces/default/configmaps').body);
  assert.equal(restored, exported, 'the same ten objects, at the same resourceVersions');
  // Restored from the store's log, not replayed; the journal is read after
  // the page is shown, and then the export has all of it, with the
  // controllers' restart where the reload put it.
  await page.waitForSelector('#export:not([disabled])');
  const [saved] = await Promise.all([page.waitForEvent('download'), page.click('#export')]);
  const journal = JSON.parse(readFileSync(await saved.path(), 'utf8')).journal;
  assert.equal(journal.filter((j) => j.controllersRestarted).length, 1);
  assert.equal(journal.filter((j) => j.method === 'POST' && (j.body || '').includes('"big-')).length, 10);
  assert.ok(journal.at(-1).controllersRestarted, 'the restart is the last entry');
  await context.close();

  // An earlier version's save in localStorage: restored, then moved.
  const first = await openApp(browser, server.url);
  await kubectl(first.page, 'kubectl create -f -', cm('from-local'));
  const [download] = await Promise.all([first.page.waitForEvent('download'), first.page.click('#export')]);
  const text = readFileSync(await download.path(), 'utf8');
  await first.context.close();
  const ctx = await browser.newContext({ viewport: { width: 1400, height: 1600 } });
  await ctx.addInitScript((t) => {
    if (!sessionStorage.getItem('seeded')) { localStorage.setItem('kubesim.session.v1', t); sessionStorage.setItem('seeded', '1'); }
  }, text);
  const p = await ctx.newPage();
  await p.goto(server.url);
  await p.waitForSelector('#notice:has-text("Restored")');
  assert.equal(await kubectl(p, 'kubectl get cm from-local -o name'), 'configmap/from-local\n');
  await p.waitForSelector('#save-state.saved');
  assert.equal(await p.evaluate(() => localStorage.getItem('kubesim.session.v1')), null);
  await p.reload();
  await p.waitForSelector('#notice:has-text("Restored")');
  assert.equal(await kubectl(p, 'kubectl get cm from-local -o name'), 'configmap/from-local\n');
  await ctx.close();
});

test('the wire lens shows one object as JSON, YAML, Table and annotated protobuf', async () => {
  const { page, context, errors } = await openApp(browser, server.url);
  assert.equal(await kubectl(page, 'kubectl create -f -', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: wired\ndata:\n  a: "1"\n  b: "2"\n'), 'configmap/wired created\n');
  await page.locator('#log-list .logrow:has-text("POST")').last().click();
  await page.click('#log-detail .wire-toggle');
  const panes = page.locator('#log-detail .wire-pane');
  await panes.nth(3).waitFor();
  assert.equal(await panes.count(), 4);
  const titles = await page.locator('#log-detail .wire-pane h4').allTextContents();
  assert.match(titles[0], /^JSON\d+ bytes$/);
  assert.match(titles[2], /^Table/);
  assert.match(titles[3], /^protobuf/);
  // The Table is rendered with the server's columns, and the protobuf bytes
  // are laid out: magic, the Unknown wrapper, then the object's fields.
  assert.deepEqual(await page.locator('#log-detail .wire-table th').allTextContents(), ['NAME', 'DATA', 'AGE']);
  assert.equal(await page.locator('#log-detail .wire-table td').first().textContent(), 'wired');
  const fields = await page.locator('#log-detail .wire-field').allTextContents();
  assert.equal(fields[0], 'magic k8s\\0');
  for (const f of ['#1 Unknown.typeMeta', '#2 Unknown.raw', '#1 metadata', '#1 name', '#2 data']) {
    assert.ok(fields.includes(f), `${f} in ${fields.join(', ')}`);
  }
  const protoBytes = Number(titles[3].match(/(\d+) bytes/)[1]);
  const jsonBytes = Number(titles[0].match(/(\d+) bytes/)[1]);
  assert.ok(protoBytes < jsonBytes, `${protoBytes} < ${jsonBytes}`);
  await page.screenshot({ path: join(SHOTS, '11-wire-lens.png'), fullPage: true });
  assert.deepEqual(errors, []);
  await context.close();
});

test('the owners view shows a Deployment down to its running pods, live', async () => {
  const { page, errors } = await openApp(browser, server.url);
  await page.fill('#owners-namespace', 'kube-system');
  await page.waitForFunction(() => document.querySelector('#owners')?.textContent.includes('coredns'));
  const rows = await page.locator('#owners .owner-row .kind').allTextContents();
  assert.deepEqual(rows, ['Deployment', 'ReplicaSet', 'Pod', 'Pod']);
  await page.fill('#owners-namespace', 'default');
  // A first visit finds workloads running in default: the starter's
  // Deployment (two pods) and spec 002's counter pod.
  await page.waitForFunction(() => document.querySelectorAll('#owners .owner-row').length === 5);
  assert.match(await page.textContent('#owners'), /hello2\/2 ready/);
  assert.match(await page.textContent('#owners'), /counterRunning 1\/1 on worker-/);
  const yaml = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 2\n  selector:\n    matchLabels: {app: web}\n  template:\n    metadata:\n      labels: {app: web}\n    spec:\n      containers:\n      - name: nginx\n        image: nginx:1.27\n';
  assert.equal(await kubectl(page, 'kubectl create -f -', yaml), 'deployment.apps/web created\n');
  await page.waitForFunction(() => document.querySelectorAll('#owners .owner-row').length === 9);
  assert.match(await page.textContent('#owners'), /web2\/2 ready, 2 up-to-date, NewReplicaSetAvailable/);
  assert.match(await page.textContent('#owners'), /Running 1\/1 on worker-/);
  await page.locator('#owners-panel').screenshot({ path: join(SHOTS, 'owners.png') });
  // A row opens the object in the inspector.
  await page.locator('#owners .owner-row a', { hasText: /^web$/ }).click();
  await page.waitForFunction(() => document.querySelector('#inspector-body')?.textContent.includes('kind: Deployment'));
  assert.deepEqual(errors, []);
});

test('a newcomer starts from the welcome: a starter fills in a command, runs it and says where to look', async () => {
  const { page, errors } = await openApp(browser, server.url);
  assert.match(await page.textContent('#welcome'), /Kubernetes API simulated in this tab/);
  assert.equal(await page.getAttribute('#welcome a', 'href'), 'https://kubernetes.io/docs/reference/using-api/api-concepts/');
  await page.click('#try-deployment');
  await page.waitForFunction(() => document.querySelector('#kubectl-output')?.textContent === 'deployment.apps/web created\n');
  assert.equal(await page.inputValue('#kubectl-line'), 'kubectl create deployment web --image=nginx --replicas=3');
  assert.match(await page.textContent('#welcome-look'), /^Owners shows the Deployment/);
  await page.waitForFunction(() => /web3\/3 ready/.test(document.querySelector('#owners')?.textContent ?? ''));
  await page.screenshot({ path: join(SHOTS, '00-welcome.png') });
  // The watch starter opens a lane through the command bar's -w.
  await page.click('#try-watch');
  await page.waitForFunction(() => document.querySelectorAll('.lane').length >= 1);
  // Hidden on request, and it stays hidden after a reload.
  await page.click('#welcome-hide');
  assert.equal(await page.locator('#welcome').count(), 0);
  await page.reload();
  await page.waitForSelector('#welcome-show');
  assert.equal(await page.locator('#welcome').count(), 0);
  await page.click('#welcome-show');
  await page.waitForSelector('#welcome');
  assert.deepEqual(errors, []);
});

test('the kubectl panel behaves like a terminal: echo, scroll-back, history, Ctrl-L', async () => {
  const { page, errors } = await openApp(browser, server.url);
  assert.equal(await kubectl(page, 'kubectl create configmap one'), 'configmap/one created\n');
  assert.equal(await kubectl(page, 'kubectl get cm one -o name'), 'configmap/one\n');
  assert.equal(await page.textContent('#kubectl-echo'), '$ kubectl get cm one -o name');
  assert.match(await page.textContent('#kubectl-scrollback'), /\$ kubectl create configmap one\s*copy\s*configmap\/one created/);
  await page.fill('#kubectl-line', '');
  await page.focus('#kubectl-line');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.inputValue('#kubectl-line'), 'kubectl get cm one -o name');
  await page.keyboard.press('ArrowUp');
  assert.equal(await page.inputValue('#kubectl-line'), 'kubectl create configmap one');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.inputValue('#kubectl-line'), 'kubectl get cm one -o name');
  await page.keyboard.press('ArrowDown');
  assert.equal(await page.inputValue('#kubectl-line'), '');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelectorAll('#kubectl-scrollback .echo').length === 2);
  // Past its height, the scroll-back shows its newest entries, just above
  // the latest command, as a terminal does.
  for (let i = 0; i < 8; i++) await kubectl(page, `kubectl create configmap more-${i}`);
  const back = await page.evaluate(() => {
    const el = document.querySelector('#kubectl-scrollback');
    return { overflows: el.scrollHeight > el.clientHeight, atBottom: el.scrollTop + el.clientHeight >= el.scrollHeight - 2 };
  });
  assert.deepEqual(back, { overflows: true, atBottom: true });
  await page.focus('#kubectl-line');
  await page.keyboard.press('Control+l');
  assert.equal(await page.locator('#kubectl-scrollback').count(), 0);
  assert.equal(await page.locator('#kubectl-output').count(), 0);
  assert.deepEqual(errors, []);
});

test('a workshop types imperative kubectl: create deployment, scale, run, logs', async () => {
  const { page, errors } = await openApp(browser, server.url);
  assert.equal(await kubectl(page, 'kubectl create deployment web --image=nginx --replicas=2'), 'deployment.apps/web created\n');
  assert.equal(await kubectl(page, 'kubectl scale deployment web --replicas=3'), 'deployment.apps/web scaled\n');
  assert.equal(await kubectl(page, 'kubectl run hello --image=busybox --restart=Never -- echo hello from kubesim'), 'pod/hello created\n');
  // The scheduler and the kubelets bring the pods up as the page's clock runs.
  await page.fill('#owners-namespace', 'default');
  await page.waitForFunction(() => /web3\/3 ready/.test(document.querySelector('#owners')?.textContent ?? ''));
  let logs = '';
  for (let i = 0; i < 40 && !logs.includes('hello from kubesim'); i++) {
    logs = await kubectl(page, 'kubectl logs hello');
    if (!logs.includes('hello from kubesim')) await page.waitForTimeout(250);
  }
  assert.equal(logs, 'hello from kubesim\n');
  // Its program printed and ended: the pod completed (restartPolicy Never).
  await page.waitForFunction(() => /hello\s*Completed 0\/1/.test(document.querySelector('#owners')?.textContent ?? ''));
  assert.match(await kubectl(page, 'kubectl get pod hello'), /hello\s+0\/1\s+Completed\s+0/);
  const pods = await kubectl(page, 'kubectl get pods -l app=web');
  assert.equal(pods.trim().split('\n').length, 4, pods);
  assert.match(await kubectl(page, 'kubectl create configmap settings --from-literal=mode=demo'), /^configmap\/settings created\n$/);
  // A flag from another command, and a command not simulated, say so.
  // describe: the pod with its events, as kubectl lays it out.
  const described = await kubectl(page, `kubectl describe pod ${pods.split('\n')[1].split(' ')[0]}`);
  assert.match(described, /^Name:\s+web-[a-z0-9]+-[a-z0-9]{5}\nNamespace:\s+default\n/);
  assert.match(described, /Controlled By:\s+ReplicaSet\/web-/);
  assert.match(described, /Events:\n  Type    Reason     Age   From               Message\n/);
  assert.match(described, /Normal  Scheduled  \d+s\s+default-scheduler  Successfully assigned default\/web-/);
  // explain: the first one loads the fields' descriptions kept next to the page.
  await page.fill('#kubectl-line', 'kubectl explain deployments.spec.strategy');
  await page.click('#kubectl-run');
  await page.waitForFunction(() => /KIND:\s+Deployment/.test(document.querySelector('#kubectl-output')?.textContent ?? ''));
  const explained = await page.textContent('#kubectl-output');
  assert.match(explained, /^GROUP:      apps\nKIND:       Deployment\nVERSION:    v1\n\nFIELD: strategy <DeploymentStrategy>\n/);
  assert.match(explained, /\n  rollingUpdate\t<RollingUpdateDeployment>\n    Rolling update config params\./);
  assert.match(await kubectl(page, 'kubectl get pods --image=nginx'), /^error: unknown flag: --image\nSee 'kubectl get --help' for usage\./);
  assert.equal(await kubectl(page, 'kubectl rollout status deploy/web'), 'deployment "web" successfully rolled out\n');
  assert.equal(await kubectl(page, 'kubectl expose deployment web --port=80'), 'service/web exposed\n');
  assert.match(await kubectl(page, 'kubectl top pods'), /"kubectl top" is not simulated in this command bar; it knows get, create, .*rollout \(status, history, restart, undo, pause, resume\)/);
  // Long output wraps as a terminal's does: nothing is cut off to the side.
  const clipped = await page.evaluate(() => { const o = document.querySelector('#kubectl-output'); return o.scrollWidth > o.clientWidth; });
  assert.equal(clipped, false);
  await kubectl(page, 'kubectl get deploy,pods');
  await page.screenshot({ path: join(SHOTS, '16-imperative.png'), fullPage: false });
  assert.deepEqual(errors, []);
});

test('after a reload, history compacted before the page read it is named, not shown as empty revisions', async () => {
  const { page, errors } = await openApp(browser, server.url);
  assert.equal(await kubectl(page, 'kubectl create configmap early'), 'configmap/early created\n');
  await page.click('#advance-5m');
  await page.click('#advance-1m');
  await page.click('#compact');
  await page.reload();
  await page.waitForFunction(() => document.querySelector('#timeline-head'));
  const head = await page.textContent('#timeline-head');
  const compacted = Number(/compacted ≤ (\d+)/.exec(head)[1]);
  assert.ok(compacted > 1, head);
  assert.match(head, new RegExp(`revisions 1–${compacted} were compacted before this page read them`));
  assert.match(await page.textContent('#timeline-empty'), /Nothing left to show: every write up to revision \d+ was compacted/);
  // A new write shows, and the note stays.
  assert.equal(await kubectl(page, 'kubectl create configmap later-on'), 'configmap/later-on created\n');
  await page.waitForFunction(() => document.querySelector('#timeline-list')?.textContent.includes('ConfigMap/default/later-on'));
  assert.equal(await page.locator('#timeline-empty').count(), 0);
  assert.match(await page.textContent('#timeline-head'), /were compacted before this page read them/);
  assert.deepEqual(errors, []);
});

test('empty panels say what will appear in them, and the hint goes once it does', async () => {
  const { page, errors } = await openApp(browser, server.url);
  for (const id of ['#lanes-empty', '#pager-empty', '#console-empty']) {
    assert.ok(await page.isVisible(id), `${id} is shown on a fresh page`);
  }
  assert.match(await page.textContent('#lanes-empty'), /open watch/);
  await page.fill('#lane-path', '/api/v1/namespaces/default/configmaps');
  await page.click('#lane-open');
  await page.waitForSelector('#lane-1-state');
  assert.equal(await page.locator('#lanes-empty').count(), 0, 'an open lane replaces the hint');
  await page.click('#pager-first');
  await page.waitForFunction(() => !document.querySelector('#pager-empty'));
  await page.click('#console-send');
  await page.waitForFunction(() => !document.querySelector('#console-empty'));
  assert.deepEqual(errors, []);
});

test('a console request that cannot be built clears the previous answer', async () => {
  const { page, errors } = await openApp(browser, server.url);
  const panel = page.locator('#console-body').locator('xpath=..');
  await page.fill('#console-path', '/api/v1/namespaces/default/configmaps');
  await page.click('#console-send');
  await page.waitForFunction(() => document.querySelector('#console-body')?.parentElement.querySelector('.response'));
  assert.match(await panel.locator('.response').first().textContent(), /HTTP\/1\.1 200 OK/);
  await page.selectOption('#console-method', 'POST');
  await page.fill('#console-body', 'metadata: {name: [unclosed');
  await page.click('#console-send');
  await page.waitForFunction(() => document.querySelector('#console-body')?.parentElement.querySelector('.error'));
  assert.equal(await panel.locator('.response').count(), 0, 'the old 200 is not shown under the new error');
  assert.deepEqual(errors, []);
});

test('acting as alice shows her 403 until the administrator binds her a role', async () => {
  const { page, context, errors } = await openApp(browser, server.url);
  const actAs = async (user) => {
    await page.locator('#acting-user').fill(user);
    await page.locator('#acting-user').blur();
  };
  await actAs('alice');
  assert.match(await kubectl(page, 'kubectl get pods'), /User "alice" cannot list resource "pods" in API group "" in the namespace "default"/);
  // The request log shows the impersonation header kubectl --as would send.
  await page.locator('#log-list .logrow:has-text("403")').last().click();
  await page.waitForSelector('.response .header:has-text("Impersonate-User: alice")');
  await page.screenshot({ path: join(SHOTS, '12-acting-as-alice.png'), fullPage: true });
  await actAs('');
  const binding = 'apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: alice-view\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: view\nsubjects:\n- apiGroup: rbac.authorization.k8s.io\n  kind: User\n  name: alice\n';
  assert.equal(await kubectl(page, 'kubectl create -f -', binding), 'rolebinding.rbac.authorization.k8s.io/alice-view created\n');
  await actAs('alice');
  assert.doesNotMatch(await kubectl(page, 'kubectl get pods'), /forbidden/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the fairness panel shows a noisy tenant starving alice, and the fix', async () => {
  const { page, context, errors } = await openApp(browser, server.url);
  // The levels as the dispatcher holds them: global-default has 49 seats of 600.
  await page.waitForSelector('#fairness-levels tr:has-text("global-default")');
  assert.match(await page.textContent('#fairness-levels tr:has-text("global-default")'), /global-default\s*49/);
  const row = async (name) => (await page.locator(`#fairness-flows tr:has(td:text-is("${name}"))`).locator('td').allTextContents());
  // One noisy user: its own queues overflow, alice is served.
  await page.click('#fairness-preset-0');
  let noisy = await row('noisy');
  assert.ok(Number(noisy[4]) > 0, `noisy refused: ${noisy}`);
  assert.equal((await row('alice'))[4], '0');
  // A hundred batch users cover every queue: alice times out.
  await page.click('#fairness-preset-1');
  let alice = await row('alice');
  assert.match(alice[1], /global-default → global-default/);
  assert.ok(Number(alice[4]) > 0, `alice refused: ${alice}`);
  // Each queue's bar says whose requests wait in it.
  assert.ok(await page.locator('.apf-bar[title*="waiting, from batch-"]').count() > 0);
  await page.locator('#fairness-panel').screenshot({ path: join(SHOTS, '13-fairness-starved.png') });
  // The fix: a level of batch-jobs' own, by two requests the log shows.
  await page.click('#fairness-isolate');
  await page.waitForSelector('#fairness-levels tr:has-text("batch")');
  await page.click('#fairness-preset-1');
  alice = await row('alice');
  assert.equal(alice[4], '0', `alice after the fix: ${alice}`);
  assert.match((await row('batch-jobs'))[1], /batch-jobs → batch/);
  await page.locator('#fairness-panel').screenshot({ path: join(SHOTS, '14-fairness-fixed.png') });
  // A scenario of one's own: carol, 50 lists a second; her hand of queues shows.
  await page.click('#load-builder summary');
  await page.click('#load-clear');
  await page.fill('#load-user', 'carol');
  await page.click('#load-add');
  await page.click('#load-run');
  const carol = await row('carol');
  assert.match(carol[1], /global-default → global-default/);
  assert.match(carol[6], /^\d+( \d+){5}$/, `a hand of six queues: ${carol}`);
  // The metrics panel charts the page's own requests over simulated time.
  await page.click('button:has-text("+1 min")');
  await page.waitForFunction(() => document.querySelectorAll('#metrics-chart polyline').length > 0);
  assert.match(await page.textContent('#metrics-chart'), /POST \d/);
  await page.click('#metrics-chart button:has-text("requests/s by code")');
  assert.match(await page.textContent('#metrics-chart'), /201 \d/);
  await page.locator('#metrics-panel').screenshot({ path: join(SHOTS, '15-metrics.png') });
  assert.deepEqual(errors, []);
  await context.close();
});

test('a projector: text size, focus layout and theme are the reader\'s choice, kept across a reload, and nothing overflows sideways at 1024 px', async () => {
  const { context, page, errors } = await openApp(browser, server.url, { width: 1024, height: 768 });
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  const rootSize = () => page.evaluate(() => getComputedStyle(document.documentElement).fontSize);
  const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(await rootSize(), '13px');
  assert.equal(await overflow(), 0, 'no sideways scrolling at 1024 px');
  const light = await background();
  // Larger text scales every size, the virtual lists' rows too.
  for (const size of ['16', '18']) {
    await page.selectOption('#view-text', size);
    assert.equal(await rootSize(), `${size}px`);
    assert.equal(await overflow(), 0, `no sideways scrolling at ${size} px`);
  }
  const row = await page.locator('#log-list .vrow').first().evaluate((e) => e.getBoundingClientRect().height);
  assert.ok(Math.abs(row - 22 * 18 / 13) < 0.5, `a request-log row grows with the text (${row})`);
  // The focus layout keeps kubectl, the lanes and the inspector.
  await page.selectOption('#view-layout', 'focus');
  for (const id of ['#command-panel', '#lanes-panel', '#inspector-panel']) {
    assert.ok(await page.isVisible(id), `${id} stays`);
  }
  for (const id of ['#log-panel', '#owners-panel', '#console-panel', '#timeline-panel', '#welcome']) {
    assert.ok(!(await page.isVisible(id)), `${id} goes`);
  }
  await page.selectOption('#view-theme', 'dark');
  const dark = await background();
  assert.notEqual(dark, light);
  await page.screenshot({ path: join(SHOTS, 'projector-dark-18px-focus.png') });
  // A reload keeps all three.
  await page.reload();
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await rootSize(), '18px');
  assert.equal(await page.inputValue('#view-text'), '18');
  assert.equal(await page.inputValue('#view-layout'), 'focus');
  assert.equal(await page.inputValue('#view-theme'), 'dark');
  assert.equal(await background(), dark);
  assert.ok(!(await page.isVisible('#log-panel')));
  assert.deepEqual(errors, []);
  await context.close();
  // "As the system" follows prefers-color-scheme; "light" overrides it.
  const sys = await browser.newContext({ viewport: { width: 1024, height: 768 }, colorScheme: 'dark' });
  const p2 = await sys.newPage();
  await p2.goto(server.url);
  await p2.waitForSelector('body[data-ready="1"]');
  assert.equal(await p2.inputValue('#view-theme'), 'system');
  assert.equal(await p2.evaluate(() => getComputedStyle(document.body).backgroundColor), dark);
  await p2.selectOption('#view-theme', 'light');
  assert.equal(await p2.evaluate(() => getComputedStyle(document.body).backgroundColor), light);
  await sys.close();
});

// Moves the focus with Tab (Shift+Tab when the target comes earlier in the
// page) until `selector` matches the focused element: proof that a
// keyboard reaches it.
async function tabTo(page, selector, max = 400) {
  const back = await page.evaluate((s) => {
    const t = document.querySelector(s);
    const a = document.activeElement;
    return !!(t && a && a !== document.body && (t.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING));
  }, selector);
  for (let i = 0; i < max; i++) {
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
}

test('keyboard only: create with a finalizer, watch, delete, remove the finalizer; no serious accessibility violations in either theme', async () => {
  const { context, page, errors } = await openApp(browser, server.url, { width: 1440, height: 900 });
  assert.deepEqual(await axeViolations(page), [], 'the page as it opens');
  const type = async (selector, text) => {
    await tabTo(page, selector);
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText(text);
  };
  // Create a ConfigMap held by a finalizer: the YAML box, then the command and Enter.
  await type('#kubectl-file', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keyed\n  finalizers:\n  - example.com/hold\n');
  await type('#kubectl-line', 'kubectl create -f -');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('#kubectl-output')?.textContent === 'configmap/keyed created\n');
  // Watch configmaps: the path, then Enter opens the lane.
  await type('#lane-path', '/api/v1/namespaces/default/configmaps');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#lane-1-state:text("watching")');
  // Delete it: the finalizer holds it, the lane gets MODIFIED.
  await type('#kubectl-line', 'kubectl delete cm keyed');
  await page.keyboard.press('Enter');
  await page.locator('#lane-1-events .event.modified').last().waitFor();
  // The lane's newest event is announced.
  assert.match(await page.textContent('#lane-1-live'), /^MODIFIED default\/keyed \d+$/);
  // Into the lane's list, down to the last event, Enter: the inspector.
  await tabTo(page, '#lane-1-events .vrow');
  for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowDown');
  assert.ok(await page.evaluate(() => document.activeElement.matches('#lane-1-events .vrow:last-child')));
  await page.keyboard.press('Enter');
  await page.waitForSelector('.phase.on[data-phase="terminating"][aria-current="step"]');
  // Remove the finalizer with the keyboard: DELETED, and the removed phase.
  await tabTo(page, '.remove-finalizer[data-finalizer="example.com/hold"]');
  await page.keyboard.press('Enter');
  await page.locator('#lane-1-events .event.deleted').last().waitFor();
  await page.waitForSelector('.phase.on[data-phase="removed"]');
  // The import control is reachable too.
  await tabTo(page, '#import');
  assert.deepEqual(await axeViolations(page), [], 'with a lane, an answer and the inspector open');
  await page.selectOption('#view-theme', 'dark');
  assert.deepEqual(await axeViolations(page), [], 'the same in the dark theme');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a list-first lane shows what it listed, each item opens in the inspector; outputs and objects have copy buttons', async () => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.waitForSelector('body[data-ready="1"]');
  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  const out = await kubectl(page, 'kubectl get ns');
  assert.match(out, /kube-system/);
  await page.click('#kubectl-copy');
  assert.equal(await page.textContent('#kubectl-copy'), 'copied');
  assert.equal(await clipboard(), out);
  // The lane lists first: the listed ConfigMap is a row of its own.
  await page.click('#lane-open');
  const listed = page.locator('#lane-1-events .event.listed');
  await listed.first().waitFor();
  assert.equal(await listed.count(), 1);
  assert.match(await listed.first().textContent(), /^LISTED\d+default\/kube-root-ca\.crt/);
  await listed.first().click();
  await page.waitForFunction(() => document.querySelector('#inspector-body')?.textContent.includes('name: kube-root-ca.crt'));
  await page.click('#inspector-copy');
  assert.match(await clipboard(), /^kind: ConfigMap[\s\S]*name: kube-root-ca\.crt/m);
  assert.deepEqual(errors, []);
  await context.close();
});

test('beside a lane, the client\'s cache: what it has, at which resourceVersion, and how far behind it falls', async () => {
  const { page, context, errors } = await openApp(browser, server.url);
  await page.click('#lane-open');
  await page.waitForSelector('#lane-1-state:text("watching")');
  await page.click('#lane-1-cache summary');
  const summary = () => page.textContent('#lane-1-cache-summary');
  const lag = () => page.textContent('#lane-1-lag');
  assert.match(await summary(), /^client cache: 1 object at resourceVersion \d+$/);
  assert.equal(await lag(), 'up to date');
  assert.equal(await page.textContent('#lane-1-cache .cache-state.on'), 'watching');
  assert.match(await page.textContent('#lane-1-cached'), /default\/kube-root-ca\.crt/);

  // A create arrives as an event: the cache has it, at the new resourceVersion.
  assert.equal(await kubectl(page, 'kubectl create configmap one'), 'configmap/one created\n');
  await page.waitForFunction(() => /^client cache: 2 objects/.test(document.querySelector('#lane-1-cache-summary').textContent));
  assert.match(await page.textContent('#lane-1-cached'), /default\/one/);
  assert.equal(await lag(), 'up to date');

  // Stopped, the client keeps what it had while the server moves on.
  await page.click('#lane-1 .lane-stop');
  const before = await summary();
  assert.equal(await kubectl(page, 'kubectl create configmap two'), 'configmap/two created\n');
  await page.waitForFunction(() => document.querySelector('#lane-1-lag').textContent === '1 revision behind');
  assert.equal(await summary(), before);
  assert.doesNotMatch(await page.textContent('#lane-1-cached'), /default\/two/);
  assert.equal(await page.locator('#lane-1-cache .cache-state.on').count(), 0, 'stopped is none of the informer\'s states');

  // Resumed, it catches up.
  await page.click('#lane-1 .lane-resume');
  await page.waitForFunction(() => /^client cache: 3 objects/.test(document.querySelector('#lane-1-cache-summary').textContent));
  assert.equal(await lag(), 'up to date');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(errors, []);
  await context.close();
});

test('kubectl edit puts the object in the file box and saves what was changed there; replace --force makes a new object', async () => {
  const { page, context, errors } = await openApp(browser, server.url);
  assert.equal(await kubectl(page, 'kubectl create configmap tune --from-literal=mode=slow'), 'configmap/tune created\n');
  await page.fill('#kubectl-line', 'kubectl edit cm tune');
  await page.click('#kubectl-run');
  await page.waitForFunction(() => document.querySelector('#kubectl-file').value.includes('mode: slow'));
  assert.match(await page.textContent('#kubectl-output'), /configmap\/tune is in the file box/);
  assert.match(await page.textContent('#kubectl-differs'), /\$EDITOR/);
  const yaml = await page.inputValue('#kubectl-file');
  assert.doesNotMatch(yaml, /managedFields/);
  await page.fill('#kubectl-file', yaml.replace('mode: slow', 'mode: fast'));
  await page.click('#kubectl-run');
  await page.waitForFunction(() => document.querySelector('#kubectl-output').textContent.includes('configmap/tune edited'));
  assert.equal(await page.inputValue('#kubectl-file'), '', 'the box is emptied once saved');
  assert.match(await kubectl(page, 'kubectl get cm tune -o yaml'), /mode: fast/);
  const uid = (await kubectl(page, 'kubectl get cm tune -o yaml')).match(/uid: (\S+)/)[1];
  const file = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: tune\ndata:\n  mode: new\n';
  assert.equal(await kubectl(page, 'kubectl replace --force -f -', file), 'configmap "tune" deleted\nconfigmap/tune replaced\n');
  assert.doesNotMatch(await kubectl(page, 'kubectl get cm tune -o yaml'), new RegExp(`uid: ${uid}`));
  assert.deepEqual(errors, []);
  await context.close();
});

test('the inspector opens any object by type, namespace and name, with completion', async () => {
  const { page, errors } = await openApp(browser, server.url);
  // Completion: the types discovery lists, and the names once the name field has focus.
  const options = (id) => page.$$eval(`#${id} option`, (os) => os.map((o) => o.value));
  assert.ok((await options('open-kinds')).includes('deployments'));
  await page.fill('#open-kind', 'deploy');
  await page.fill('#open-namespace', 'kube-system');
  await page.focus('#open-name');
  await page.waitForFunction(() => document.querySelectorAll('#open-names option').length > 0);
  assert.deepEqual(await options('open-names'), ['coredns']);
  assert.ok((await options('open-namespaces')).includes('kube-node-lease'));
  await page.fill('#open-name', 'coredns');
  await page.press('#open-name', 'Enter');
  await page.waitForFunction(() => document.querySelector('#inspector-body')?.textContent.includes('kind: Deployment'));
  assert.match(await page.textContent('#inspector-body'), /name: coredns/);
  // A cluster-scoped type needs no namespace.
  await page.fill('#open-kind', 'no');
  assert.ok(await page.isDisabled('#open-namespace'));
  await page.fill('#open-name', 'worker-1');
  await page.click('#open-go');
  await page.waitForFunction(() => document.querySelector('#inspector-body')?.textContent.includes('kind: Node'));
  // What cannot be opened says why.
  await page.fill('#open-kind', 'flurb');
  await page.click('#open-go');
  assert.equal(await page.textContent('#open-error'), 'the server doesn\'t have a resource type "flurb"');
  assert.deepEqual(errors, []);
});

test('where the page differs from a cluster, it says so when it matters, linking the docs', async () => {
  const { page, errors } = await openApp(browser, server.url);
  // Nothing to say for an ordinary create while the controllers run.
  await kubectl(page, 'kubectl create deployment live --image=nginx');
  assert.equal(await page.locator('#kubectl-differs').count(), 0);
  await page.click('#pause-controllers');
  await kubectl(page, 'kubectl create deployment held --image=nginx --replicas=2');
  assert.match(await page.textContent('#kubectl-differs'), /controllers are paused in this page/);
  assert.match(await page.textContent('#owners-differs'), /controllers are paused in this page/);
  // The link opens the docs' account of every difference.
  const href = await page.getAttribute('#kubectl-differs a', 'href');
  const doc = await page.request.get(new URL(href, page.url()).href);
  assert.equal(doc.status(), 200);
  assert.match(await doc.text(), /^# /);
  await page.click('#pause-controllers');
  assert.equal(await page.locator('#owners-differs').count(), 0);
  // A Service: nothing answers on its address here.
  await kubectl(page, 'kubectl expose deployment live --port=80');
  assert.match(await page.textContent('#kubectl-differs'), /nothing answers on them/);
  assert.deepEqual(errors, []);
});
