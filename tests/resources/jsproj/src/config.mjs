export default {
  title: 'demo',
};
