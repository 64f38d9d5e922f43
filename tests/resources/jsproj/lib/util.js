exports.pad = function (text) {
  return ` ${text} `;
};

exports.clamp = (value, low, high) => Math.min(high, Math.max(low, value));
