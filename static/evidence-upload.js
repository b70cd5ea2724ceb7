// Evidence uploads: each chosen file is sent as the request body itself (streamed to storage while hashed on the
// server), one at a time, with its progress and the server's answer shown beside its name.
(function () {
  var form = document.getElementById('evidence-upload');
  if (!form) return;
  var input = form.querySelector('input[type=file]');
  var list = form.querySelector('.upload-progress');
  var maxBytes = Number(form.dataset.maxBytes);

  function row(name) {
    var item = document.createElement('li');
    var label = document.createElement('span');
    label.textContent = name + ': ';
    var bar = document.createElement('progress');
    bar.max = 100;
    bar.value = 0;
    var status = document.createElement('span');
    item.append(label, bar, status);
    list.append(item);
    return { bar: bar, status: status };
  }

  function send(file) {
    var shown = row(file.name);
    if (file.size > maxBytes) {
      shown.status.textContent = ' refused: larger than ' + Math.round(maxBytes / 1048576) + ' MB';
      return Promise.resolve(false);
    }
    return new Promise(function (resolve) {
      var request = new XMLHttpRequest();
      request.open('POST', form.dataset.action + '?name=' + encodeURIComponent(file.name));
      request.setRequestHeader('x-csrf-token', form.dataset.csrf);
      request.setRequestHeader('content-type', 'application/octet-stream');
      request.upload.onprogress = function (event) {
        if (event.lengthComputable) shown.bar.value = Math.round((event.loaded / event.total) * 100);
      };
      request.onload = function () {
        var answer = {};
        try { answer = JSON.parse(request.responseText); } catch (e) { /* not JSON: shown by status below */ }
        if (request.status === 201) {
          shown.bar.value = 100;
          shown.status.textContent = ' stored, SHA-256 ' + answer.data.sha256;
          resolve(true);
        } else {
          shown.status.textContent = ' refused: ' + (answer.error || 'the server answered ' + request.status);
          resolve(false);
        }
      };
      request.onerror = function () {
        shown.status.textContent = ' failed: the connection was lost';
        resolve(false);
      };
      request.send(file);
    });
  }

  form.addEventListener('submit', function (event) {
    event.preventDefault();
    var files = Array.prototype.slice.call(input.files);
    list.textContent = '';
    var allStored = true;
    files.reduce(function (previous, file) {
      return previous.then(function () { return send(file).then(function (ok) { allStored = allStored && ok; }); });
    }, Promise.resolve()).then(function () {
      if (allStored) window.location.reload();
      else {
        var again = document.createElement('li');
        var link = document.createElement('a');
        link.href = window.location.pathname;
        link.textContent = 'Show the stored files';
        again.append(link);
        list.append(again);
      }
    });
  });
})();
